/**
 * A local SMTP server (the `smtp-server` package) that accepts every message
 * and keeps it, parsed, for tests: point `SMTP_URL` at `url`. Runs under Bun
 * (integration tests) and Node (Playwright).
 */

import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface CapturedMail {
  to: string;
  from: string;
  subject: string;
  text: string;
}

export interface SmtpFake {
  url: string;
  messages: CapturedMail[];
  /** The first message to `to` whose subject contains `subject` that was not taken before, waiting for it. */
  take(to: string, subject: string, timeoutMs?: number): Promise<CapturedMail>;
  /** The first link in a mail's text that starts with `prefix`. */
  linkIn(mail: CapturedMail, prefix: string): string;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<SmtpFake> {
  const messages: CapturedMail[] = [];
  const taken = new Set<CapturedMail>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, done) {
      simpleParser(stream)
        .then((m) => {
          const addr = (a: typeof m.to) => (Array.isArray(a) ? a.map((x) => x.text).join(", ") : (a?.text ?? ""));
          messages.push({ to: addr(m.to), from: m.from?.text ?? "", subject: m.subject ?? "", text: m.text ?? "" });
          done();
        })
        .catch((e) => done(e as Error));
    },
  });
  // A client that goes away mid-session (a server under test stopped while it sends) resets its connection: the
  // SMTP server reports that as an "error" event, which, unhandled, would fail whichever test runs at that moment.
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async take(to, subject, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = messages.find(
          (x) => !taken.has(x) && x.to.toLowerCase().includes(to.toLowerCase()) && x.subject.includes(subject),
        );
        if (m) {
          taken.add(m);
          return m;
        }
        if (Date.now() > deadline)
          throw new Error(
            `no mail "${subject}" to ${to}; got ${JSON.stringify(messages.map((x) => [x.to, x.subject]))}`,
          );
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    linkIn(mail, prefix) {
      const link = mail.text.split(/\s+/).find((w) => w.startsWith(prefix));
      if (!link) throw new Error(`no link starting ${prefix} in: ${mail.text}`);
      return link;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
