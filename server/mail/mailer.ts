// Outgoing mail. SMTP (nodemailer) when SMTP_URL is set; otherwise the dev mailbox: every message is
// written as an .eml file under <data dir>/mail/ and summarised, with its links, in one log line.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import nodemailer from "nodemailer";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The actionable links of the message, shown in the dev mailbox summary. */
  links?: string[];
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  readonly transport: "smtp" | "dev-mailbox";
}

export interface MailerOptions {
  smtpUrl: string | undefined;
  from: string;
  /** Directory for the dev mailbox (.eml files). */
  mailDir: string;
  log: (line: string) => void;
}

export function createMailer(opts: MailerOptions): Mailer {
  if (opts.smtpUrl) {
    const transporter = nodemailer.createTransport(opts.smtpUrl);
    return {
      transport: "smtp",
      async send(message) {
        await transporter.sendMail({ from: opts.from, to: message.to, subject: message.subject, text: message.text });
      },
    };
  }
  const builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  let counter = 0;
  return {
    transport: "dev-mailbox",
    async send(message) {
      const info = await builder.sendMail({ from: opts.from, to: message.to, subject: message.subject, text: message.text });
      mkdirSync(opts.mailDir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, "-");
      const file = path.join(opts.mailDir, `${stamp}-${process.pid}-${counter++}.eml`);
      writeFileSync(file, info.message as Buffer);
      const links = message.links?.length ? ` ${message.links.join(" ")}` : "";
      // one line per message: a subject can carry user text (an organization name), so no line breaks
      opts.log(`mail to ${message.to}: "${message.subject}" (${file})${links}`.replace(/[\r\n\u2028\u2029]+/g, " "));
    },
  };
}
