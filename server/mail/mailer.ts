// Outgoing mail. SMTP (nodemailer) when SMTP_URL is set; otherwise the dev mailbox: every message is
// written as an .eml file under <data dir>/mail/ (with a .json beside it that /dev/mail reads) and summarised,
// with its links, in one log line.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import nodemailer from "nodemailer";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The actionable links of the message, shown in the dev mailbox summary. */
  links?: string[];
  /** An HTML part beside the text (customer emails). */
  html?: string;
  /** A stable Message-ID (`<id@host>`): a message sent again after a crash carries the same one. */
  messageId?: string;
  /** The sender's display name (the seller's, on customer emails); the address stays MAIL_FROM's. */
  fromName?: string;
  /**
   * What the dev mailbox's log line adds in development (a portal sign-in code, so a developer without a mail
   * client can sign in); never sent, never logged otherwise.
   */
  devNote?: string;
}

/** What the dev mailbox keeps beside each .eml for /dev/mail (server/mail/dev-mailbox.ts). */
export interface StoredMessage {
  date: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
}

/** The one message both transports send: the dev mailbox stores exactly what SMTP would carry. */
function envelope(from: string, m: MailMessage): nodemailer.SendMailOptions {
  return {
    from: m.fromName ? { name: m.fromName, address: addressOf(from) } : from,
    to: m.to,
    subject: m.subject,
    text: m.text,
    ...(m.html ? { html: m.html } : {}),
    ...(m.messageId ? { messageId: m.messageId } : {}),
  };
}

/** The address of `till <no-reply@host>` or of a bare address. */
function addressOf(from: string): string {
  return /<([^>]+)>/.exec(from)?.[1] ?? from;
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
  /** Development: the dev mailbox's log line carries a message's `devNote`. */
  development?: boolean;
}

/**
 * Bounded waits unless SMTP_URL sets its own (`?socketTimeout=…`): a send that hangs holds a worker's lease and
 * its stop, and nodemailer's socket default is 10 minutes.
 */
function withTimeouts(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  for (const [key, ms] of [["connectionTimeout", 10_000], ["greetingTimeout", 10_000], ["socketTimeout", 30_000]] as const) {
    if (!url.searchParams.has(key)) url.searchParams.set(key, String(ms));
  }
  return url.toString();
}

export function createMailer(opts: MailerOptions): Mailer {
  if (opts.smtpUrl) {
    const transporter = nodemailer.createTransport(withTimeouts(opts.smtpUrl));
    return {
      transport: "smtp",
      async send(message) {
        await transporter.sendMail(envelope(opts.from, message));
      },
    };
  }
  const builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  let counter = 0;
  return {
    transport: "dev-mailbox",
    async send(message) {
      const info = await builder.sendMail(envelope(opts.from, message));
      mkdirSync(opts.mailDir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, "-");
      const file = path.join(opts.mailDir, `${stamp}-${process.pid}-${counter++}.eml`);
      writeFileSync(file, info.message as Buffer);
      const from = message.fromName ? `${message.fromName} <${addressOf(opts.from)}>` : opts.from;
      const stored: StoredMessage = { date: new Date().toISOString(), from, to: message.to, subject: message.subject, text: message.text, html: message.html ?? null };
      writeFileSync(file.replace(/\.eml$/, ".json"), JSON.stringify(stored));
      const note = opts.development && message.devNote ? ` ${message.devNote}` : "";
      const links = (message.links?.length ? ` ${message.links.join(" ")}` : "") + note;
      // one line per message: a subject can carry user text (an organization name), so no line breaks
      opts.log(`mail to ${message.to}: "${message.subject}" (${file})${links}`.replace(/[\r\n\u2028\u2029]+/g, " "));
    },
  };
}
