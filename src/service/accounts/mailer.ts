/** Mail to people (docs/accounts.md "Setting up SMTP"): codes and links, sent through SMTP_URL with nodemailer. */
import nodemailer from "nodemailer";
import type { Config } from "../../config.js";

export interface Mailer {
  send(to: string, subject: string, text: string): Promise<void>;
}

/** The mailer of SMTP_URL; undefined when it is unset. */
export function createMailer(config: Pick<Config, "smtpUrl" | "mailFrom">): Mailer | undefined {
  if (config.smtpUrl === null) return undefined;
  const transport = nodemailer.createTransport(config.smtpUrl);
  return {
    async send(to, subject, text) {
      await transport.sendMail({ from: config.mailFrom, to, subject, text });
    },
  };
}
