// A real SMTP peer on loopback (smtp-server). The server under test sends to it through SMTP_URL. Messages
// are parsed with mailparser (text and HTML parts, Message-ID, From). A test can make the peer refuse the
// next messages, or hold the answer to the next one (a sender that dies after the peer has the message).
import { SMTPServer } from "smtp-server";
import { simpleParser } from "mailparser";
import type { AddressInfo } from "node:net";

export interface ReceivedMail {
  to: string[];
  raw: string;
  subject: string;
  /** The plain-text part. */
  text: string;
  /** The HTML part, when there is one. */
  html: string | null;
  messageId: string | null;
  fromName: string | null;
  fromAddress: string | null;
  /** The links of the text part. */
  links: string[];
}

async function parse(raw: Buffer, to: string[]): Promise<ReceivedMail> {
  const m = await simpleParser(raw);
  const text = m.text ?? "";
  const from = m.from?.value[0];
  return {
    to,
    raw: raw.toString("utf8"),
    subject: m.subject ?? "",
    text,
    html: typeof m.html === "string" ? m.html : null,
    messageId: m.messageId ?? null,
    fromName: from?.name || null,
    fromAddress: from?.address ?? null,
    links: [...text.matchAll(/https?:\/\/[^\s<>"\]]+/g)].map((x) => x[0]),
  };
}

export class Mailbox {
  readonly messages: ReceivedMail[] = [];
  /** Every message received, never removed by waitFor. */
  readonly all: ReceivedMail[] = [];
  private waiters: Array<() => void> = [];
  private server: SMTPServer;
  private refuse = 0;
  private hold: { arrived: () => void; release: Promise<void> } | undefined;
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
          if (this.refuse > 0) {
            this.refuse -= 1;
            callback(Object.assign(new Error("mailbox unavailable (test)"), { responseCode: 451 }));
            return;
          }
          const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
          void parse(Buffer.concat(chunks), to).then(async (mail) => {
            this.messages.push(mail);
            this.all.push(mail);
            for (const w of this.waiters.splice(0)) w();
            const held = this.hold;
            if (held) {
              this.hold = undefined;
              held.arrived();
              await held.release;
            }
            callback();
          });
        });
      },
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** The next `n` messages are refused with a temporary error (451). */
  refuseNext(n: number): void {
    this.refuse = n;
  }

  /**
   * The next message is taken, but the peer's answer waits for `release()`: the sender does not know yet that
   * it was delivered. `arrived` resolves once the message is in `messages`.
   */
  holdNext(): { arrived: Promise<void>; release: () => void } {
    let release!: () => void;
    let arrived!: () => void;
    const arrivedP = new Promise<void>((r) => (arrived = r));
    const releaseP = new Promise<void>((r) => (release = r));
    this.hold = { arrived, release: releaseP };
    return { arrived: arrivedP, release };
  }

  /** Waits for the next message to `to` whose subject matches, and takes it out of `messages`. */
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
    this.hold = undefined;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
