// How a customer email gets out: a message the SMTP peer refuses is retried, a worker that dies after the peer
// has the message sends it again with the same Message-ID (and never once it is recorded as sent), an outbox
// event yields one email, and the dev mailbox stores what a peer would get. What each email says:
// customer-emails.test.ts.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { customerEmail } from "../../server/db/schema/index.js";
import { createWorker } from "../../server/jobs/worker.js";
import { createMailer } from "../../server/mail/mailer.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller } from "../helpers/seller.js";
import { startServer } from "../helpers/server.js";
import { customerEmailsFixture, usd } from "./customer-emails-fixtures.js";

const fx = customerEmailsFixture();

describe("delivery", () => {
  it("a message the peer refuses is tried again later and delivered once", async () => {
    const product = await createProduct(fx.seller, "fixed");
    fx.server.mailbox.refuseNext(1);
    const { email } = await fx.buy(fx.seller, product);
    await expect
      .poll(async () => (await fx.db().select().from(customerEmail).where(eq(customerEmail.recipient, email)))[0], { timeout: 30_000 })
      .toMatchObject({ attempts: 1, sentAt: null });
    const [failed] = await fx.db().select().from(customerEmail).where(eq(customerEmail.recipient, email));
    expect(failed?.lastError).toMatch(/451/);
    expect(failed!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 30_000);
    expect(fx.server.mailbox.all.filter((m) => m.to.includes(email))).toEqual([]);

    await fx.db().update(customerEmail).set({ nextAttemptAt: new Date() }).where(eq(customerEmail.id, failed!.id));
    fx.server.worker.wake();
    const mail = await fx.server.mailbox.waitFor(email, /receipt/);
    expect(mail.messageId).toBe(`<${failed!.id}@127.0.0.1>`);
    await expect
      .poll(async () => (await fx.db().select().from(customerEmail).where(eq(customerEmail.id, failed!.id)))[0])
      .toMatchObject({ attempts: 2, lastError: null, sentAt: expect.any(Date) });
  });

  it("a worker that dies after the peer took the message: sent again with the same Message-ID, then never again", async () => {
    const product = await createProduct(fx.seller, "fixed");
    const held = fx.server.mailbox.holdNext();
    const { email } = await fx.buy(fx.seller, product);
    await held.arrived;
    // the crash: the peer has the message, the worker never learns it was delivered
    await fx.server.worker.kill();
    held.release();
    const [row] = await fx.db().select().from(customerEmail).where(eq(customerEmail.recipient, email));
    expect(row?.sentAt).toBeNull();
    expect(row?.lockedUntil).toBeInstanceOf(Date);

    // its lease runs out; another worker sends it again
    await fx.db().update(customerEmail).set({ lockedUntil: new Date(Date.now() - 1000) }).where(eq(customerEmail.id, row!.id));
    const mailer = createMailer({ smtpUrl: fx.server.config.mail.smtpUrl, from: fx.server.config.mail.from, mailDir: "", log: () => {} });
    const next = createWorker({ database: fx.server.database, mailer, config: { webhooks: { allowPrivate: true }, baseURL: fx.server.url }, options: { pollIntervalMs: 50 } });
    await next.start();
    try {
      await expect.poll(async () => (await fx.db().select().from(customerEmail).where(eq(customerEmail.id, row!.id)))[0]?.sentAt, { timeout: 30_000 }).toBeInstanceOf(Date);
      const copies = fx.server.mailbox.all.filter((m) => m.to.includes(email));
      expect(copies).toHaveLength(2);
      expect(copies[0]?.messageId).toBe(`<${row!.id}@127.0.0.1>`);
      expect(copies[1]?.messageId).toBe(copies[0]?.messageId);
      expect(copies[1]?.text).toBe(copies[0]?.text);

      // recorded as sent: however long workers run, it is not sent a third time
      next.wake();
      await new Promise((r) => setTimeout(r, 300));
      expect(fx.server.mailbox.all.filter((m) => m.to.includes(email))).toHaveLength(2);
    } finally {
      await next.stop();
      await fx.server.worker.start();
    }
  });

  it("a stop does not wait for a send the SMTP server holds: left unrecorded, sent again later with the same Message-ID", async () => {
    const product = await createProduct(fx.seller, "fixed");
    const held = fx.server.mailbox.holdNext();
    const { email } = await fx.buy(fx.seller, product);
    await held.arrived;
    // the peer still holds its answer when the stop returns
    await fx.server.worker.stop();
    held.release();
    await new Promise((r) => setTimeout(r, 300));
    const [row] = await fx.db().select().from(customerEmail).where(eq(customerEmail.recipient, email));
    expect(row?.sentAt).toBeNull();

    await fx.db().update(customerEmail).set({ lockedUntil: new Date(Date.now() - 1000) }).where(eq(customerEmail.id, row!.id));
    await fx.server.worker.start();
    await expect.poll(async () => (await fx.db().select().from(customerEmail).where(eq(customerEmail.id, row!.id)))[0]?.sentAt, { timeout: 30_000 }).toBeInstanceOf(Date);
    const copies = fx.server.mailbox.all.filter((m) => m.to.includes(email));
    expect(copies.map((m) => m.messageId)).toEqual([`<${row!.id}@127.0.0.1>`, `<${row!.id}@127.0.0.1>`]);
  });

  it("an outbox event yields its email once, however often it is looked at", async () => {
    const { requestFromOutbox } = await import("../../server/billing/customer-emails/service.js");
    const product = await createProduct(fx.seller, "fixed");
    const { email } = await fx.buy(fx.seller, product);
    await fx.server.mailbox.waitFor(email, /receipt/);
    const [row] = await fx.db().select().from(customerEmail).where(eq(customerEmail.recipient, email));
    const again = await requestFromOutbox(fx.db(), [
      { id: row!.outboxId, organizationId: fx.seller.organizationId, type: "order.paid", payload: row!.data, mail: null },
    ]);
    expect(again).toBe(0);
    expect(await fx.db().select().from(customerEmail).where(eq(customerEmail.recipient, email))).toHaveLength(1);
  });
});

describe("dev mailbox", () => {
  // a second server on a fresh database: slow on a busy machine
  it("stores the same message an SMTP peer gets: both parts, the Message-ID, the seller as sender", { timeout: 120_000 }, async () => {
    const dev = await startServer({}, { devMailbox: true });
    try {
      const { readdirSync, readFileSync } = await import("node:fs");
      const { simpleParser } = await import("mailparser");
      const path = await import("node:path");
      const s = await createSeller(dev, "devmail");
      await dev.worker.start();
      const product = await createProduct(s, "fixed");
      const checkout = await s.sdk.checkouts.create({ products: [product.id] });
      const email = uniqueBuyer("dev");
      await pay(dev, checkout, { customerEmail: email });
      const find = () => {
        try {
          return readdirSync(dev.mailDir).find((f) => readFileSync(path.join(dev.mailDir, f), "utf8").includes(email)) ?? null;
        } catch {
          return null;
        }
      };
      await expect.poll(find, { timeout: 30_000 }).not.toBeNull();
      const name = find()!;
      const parsed = await simpleParser(readFileSync(path.join(dev.mailDir, name)));
      const [row] = await dev.database.db.select().from(customerEmail).where(eq(customerEmail.recipient, email));
      expect(parsed.messageId).toBe(`<${row!.id}@127.0.0.1>`);
      expect(parsed.subject).toMatch(/receipt/);
      expect(parsed.text).toContain(usd(2500));
      expect(typeof parsed.html === "string" && parsed.html.includes(usd(2500))).toBe(true);
      expect(parsed.from?.value[0]?.name).toBe((await s.sdk.organizations.get({ id: s.organizationId })).name);
      expect(dev.mailbox.all).toEqual([]);
    } finally {
      await dev.close();
    }
  });
});
