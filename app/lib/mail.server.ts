/**
 * Outgoing e-mail (verification, password reset): SMTP through nodemailer when
 * `SMTP_URL` is set, else the log, so a fresh install still shows the links.
 * Chosen once from configuration.
 */
import nodemailer from "nodemailer";
import type { Config } from "./config.server";
import { log } from "./log.server";

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** `smtp`: mail leaves the machine; `log`: it is written to the log instead. */
  readonly kind: "smtp" | "log";
  send(mail: Mail): Promise<void>;
  /** Connects and logs in without sending anything (SMTP only): does the configured server take mail from us? */
  check?(): Promise<void>;
}

/** What the operator does about a mail that did not leave (logged with every failure). */
export const MAIL_HINT =
  "check SMTP_URL (host, port, user name with @ written %40, password) and MAIL_FROM; the person can ask for a new link on /verify-email or /forgot-password";

export function createMailer(config: Pick<Config, "SMTP_URL" | "MAIL_FROM" | "publicUrl">): Mailer {
  if (!config.SMTP_URL) {
    return {
      kind: "log",
      send: async (mail) =>
        log.info("mail not sent (no SMTP_URL): its text follows", {
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
        }),
    };
  }
  const transport = nodemailer.createTransport(config.SMTP_URL);
  const from = config.MAIL_FROM ?? `Atelier <no-reply@${new URL(config.publicUrl).hostname}>`;
  return {
    kind: "smtp",
    send: async (mail) => {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    check: async () => {
      await transport.verify();
    },
  };
}

/**
 * At start (serve): a mail server that cannot be reached or refuses the login is said at once, not first when a
 * person waits for a confirmation link that never comes (with SMTP_URL set, sign-in needs that link). In the
 * background: start-up does not wait for the mail server.
 */
export function checkMailerInBackground(mailer: Mailer, smtpUrl: string | undefined): Promise<void> {
  if (mailer.kind !== "smtp" || !mailer.check || !smtpUrl) return Promise.resolve();
  const u = new URL(smtpUrl);
  const server = `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ""}`;
  return mailer.check().then(
    () => log.debug("mail server accepts our login", { server }),
    (error) =>
      log.warn(
        "mail server check failed: confirmation and password-reset e-mails will not arrive, and new accounts cannot sign in until they do",
        {
          server,
          error: error instanceof Error ? error.message : String(error),
          hint: MAIL_HINT,
        },
      ),
  );
}

/**
 * Sends without making the request wait: a slow mail server must not slow
 * sign-up down, nor let response times tell which addresses have accounts.
 * `allowed` (a per-recipient bound) is asked in the background too, so a
 * held-back mail changes neither the answer nor its timing.
 */
export function sendInBackground(mailer: Mailer, mail: Mail, allowed: () => Promise<boolean> = async () => true): void {
  (async () => {
    if (await allowed()) await mailer.send(mail);
    else log.warn("mail held back: too many to this address within an hour", { subject: mail.subject });
  })().catch((error) =>
    log.error("mail delivery failed", { to: mail.to, subject: mail.subject, error, hint: MAIL_HINT }),
  );
}
