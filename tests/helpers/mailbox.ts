// A real SMTP peer on loopback (smtp-server). The server under test sends to it through SMTP_URL.
import { SMTPServer } from "smtp-server";
import type { AddressInfo } from "node:net";

export interface ReceivedMail {
  to: string[];
  raw: string;
  subject: string;
  text: string;
  links: string[];
}

function parse(raw: string, to: string[]): ReceivedMail {
  const [head = "", ...rest] = raw.split(/\r?\n\r?\n/);
  const unfolded = head.replace(/\r?\n[ \t]+/g, " ");
  const subject = /^subject: (.*)$/im.exec(unfolded)?.[1]?.trim() ?? "";
  let body = rest.join("\n\n");
  if (/content-transfer-encoding: quoted-printable/i.test(unfolded)) {
    body = body
      .replace(/=\r?\n/g, "")
      .replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
  const links = [...body.matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) => m[0]);
  return { to, raw, subject, text: body, links };
}

export class Mailbox {
  readonly messages: ReceivedMail[] = [];
  private waiters: Array<() => void> = [];
  private server: SMTPServer;
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
          this.messages.push(parse(Buffer.concat(chunks).toString("utf8"), to));
          for (const w of this.waiters.splice(0)) w();
          callback();
        });
      },
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Waits for the next message to `to` whose subject matches, received after `since` messages. */
  async waitFor(to: string, subject: RegExp, timeoutMs = 5000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = [...this.messages].reverse().find((m) => m.to.includes(to.toLowerCase()) && subject.test(m.subject));
      if (hit) {
        this.messages.splice(this.messages.indexOf(hit), 1);
        return hit;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail to ${to} matching ${subject} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
