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
}

export function createMailer(config: Pick<Config, "SMTP_URL" | "MAIL_FROM" | "publicUrl">): Mailer {
  if (!config.SMTP_URL) {
    return {
      kind: "log",
      send: async (mail) => log.info("mail not sent (no SMTP_URL): its text follows", { to: mail.to, subject: mail.subject, text: mail.text }),
    };
  }
  const transport = nodemailer.createTransport(config.SMTP_URL);
  const from = config.MAIL_FROM ?? `Atelier <no-reply@${new URL(config.publicUrl).hostname}>`;
  return {
    kind: "smtp",
    send: async (mail) => {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
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
  })().catch((error) => log.error("mail delivery failed", { to: mail.to, subject: mail.subject, error }));
}
