// The Mailer's two transports: the dev mailbox (an .eml file under <data dir>/mail/ plus one log line with
// the links, the default when SMTP_URL is unset) and SMTP, delivered to a real SMTP peer on loopback.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { createMailer, type MailMessage } from "../../server/mail/mailer.js";
import { Mailbox } from "../helpers/mailbox.js";

/** The body of an .eml as a reader sees it (nodemailer writes long lines quoted-printable). */
function readableBody(eml: string): string {
  const [head = "", ...rest] = eml.split(/\r?\n\r?\n/);
  const body = rest.join("\n\n");
  if (!/^content-transfer-encoding: quoted-printable$/im.test(head)) return body;
  return body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
}

const message: MailMessage = {
  to: "ada@example.com",
  subject: "Verify your email address",
  text: "Hello,\n\nopen https://till.example/api/auth/verify-email?token=abc&callbackURL=%2F to verify.\n",
  links: ["https://till.example/api/auth/verify-email?token=abc&callbackURL=%2F"],
};

describe("dev mailbox", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "till-mail-"));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("is the transport when SMTP_URL is unset, writing under <data dir>/mail/", async () => {
    const config = loadConfig({ TILL_DATA_DIR: dataDir });
    expect(config.mail.smtpUrl).toBeUndefined();
    const lines: string[] = [];
    const mailDir = path.join(config.dataDir, "mail");
    const mailer = createMailer({ smtpUrl: config.mail.smtpUrl, from: config.mail.from, mailDir, log: (l) => lines.push(l) });
    expect(mailer.transport).toBe("dev-mailbox");

    await mailer.send(message);
    // each message is an .eml, with a .json beside it for /dev/mail
    const files = readdirSync(mailDir).filter((f) => f.endsWith(".eml"));
    expect(files).toHaveLength(1);
    expect(readdirSync(mailDir).filter((f) => f.endsWith(".json"))).toHaveLength(1);
    expect(files[0]).toMatch(/\.eml$/);
    const file = path.join(mailDir, files[0] ?? "");
    const eml = readFileSync(file, "utf8");
    expect(eml).toMatch(/^To: ada@example\.com$/m);
    expect(eml).toMatch(/^From: till <no-reply@till\.localhost>$/m);
    expect(eml).toMatch(/^Subject: Verify your email address$/m);
    expect(readableBody(eml)).toContain(message.text.trim());

    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("\n");
    expect(lines[0]).toContain("ada@example.com");
    expect(lines[0]).toContain('"Verify your email address"');
    expect(lines[0]).toContain(file);
    expect(lines[0]).toContain(message.links?.[0]);
  });

  it("keeps every message in its own file and the log to one line each, whatever the subject holds", async () => {
    const mailDir = path.join(dataDir, "mail-2");
    const lines: string[] = [];
    const mailer = createMailer({ smtpUrl: undefined, from: "till <t@example.com>", mailDir, log: (l) => lines.push(l) });
    await mailer.send({ ...message, subject: "Acme\ninvited you\r\nFAKE LOG LINE" });
    await mailer.send({ to: "bob@example.com", subject: "Reset your password", text: "no links here" });
    expect(readdirSync(mailDir).filter((f) => f.endsWith(".eml"))).toHaveLength(2);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).not.toMatch(/[\r\n]/);
    expect(lines[1]).toContain("bob@example.com");
  });
});

describe("SMTP", () => {
  let peer: Mailbox;
  let smtpUrl: string;
  beforeAll(async () => {
    peer = new Mailbox();
    smtpUrl = await peer.start();
  });
  afterAll(async () => peer?.stop());

  it("delivers to the SMTP peer", async () => {
    const lines: string[] = [];
    const mailer = createMailer({ smtpUrl, from: "till <no-reply@till.test>", mailDir: "", log: (l) => lines.push(l) });
    expect(mailer.transport).toBe("smtp");
    await mailer.send(message);
    const mail = await peer.waitFor("ada@example.com", /^Verify your email address$/);
    expect(mail.to).toEqual(["ada@example.com"]);
    expect(mail.raw).toMatch(/^From: till <no-reply@till\.test>$/m);
    expect(mail.links).toEqual(message.links);
  });

  it("fails the send when the peer cannot be reached", async () => {
    await peer.stop();
    const mailer = createMailer({ smtpUrl, from: "till <no-reply@till.test>", mailDir: "", log: () => {} });
    await expect(mailer.send(message)).rejects.toThrow();
    peer = new Mailbox();
    smtpUrl = await peer.start();
  });
});
