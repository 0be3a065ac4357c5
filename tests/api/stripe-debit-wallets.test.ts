// A wallet's top-up and auto-recharge charged off-session to a saved bank account
// (SEPA Direct Debit, a US bank account) through the Stripe stand-in. Stripe answers `processing`: the top-up's
// order waits pending, the wallet is not credited (the seller's top-up answers 202), a retry of the same key
// charges nothing more, and no other auto-recharge is made while one is on its way. payment_intent.succeeded pays
// the order and credits the wallet once (a replayed event changes nothing); payment_intent.payment_failed leaves
// the wallet as it was and voids the order, and an auto-recharge's refusal stops recharging and emails the customer, as
// a card's decline does. The event may reach till before the charge's transaction has committed. The stand-in's bank
// answers when the test says (peer.payments.settleDebit).
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customerEmail, customerWallet, idempotencyKey, outbox, stripeEvent } from "../../server/db/schema/index.js";
import { tempConfigDir, till } from "../cli/till.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, uniqueBuyer } from "../helpers/checkout.js";
import { usingPostgres } from "../helpers/db.js";
import type { Seller } from "../helpers/seller.js";
import { confirmWithBankAccount, currencyOfBank, pricedForBank, startStripeSandbox, STRIPE_BANK_ACCOUNTS, until, type StripeBankAccount, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let seller: Seller;

beforeAll(async () => {
  s = await startStripeSandbox();
  seller = { ...s.seller, sdk: s.sdk, token: s.key };
  await s.server.worker.start();
}, 120_000);
afterAll(async () => {
  if (s) s.peer.holdAnswer = undefined;
  await s?.server.worker.stop();
  await s?.close();
});

type Body = Record<string, unknown>;
async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.key}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}
const portal = async (customerId: string, method: string, path: string, body?: unknown) =>
  rawRequest(s.server.url, (await s.sdk.customerSessions.create({ customerId })).token, method, path, body);

/**
 * A customer whose bank account a trial saved for later charges (a SetupIntent: the mandate, at once), and their empty
 * wallet.
 */
async function customerWithBank(bank: StripeBankAccount, tag: string) {
  const product = await createProduct(seller, "trial", pricedForBank("trial", bank));
  const checkout = await s.sdk.checkouts.create({ products: [product.id] });
  const email = uniqueBuyer(tag);
  const customerId = (await confirmWithBankAccount(s, checkout.clientSecret, bank, email)).customer_id as string;
  const wallet = await api("POST", "/v1/wallets/", { customer_id: customerId, currency: currencyOfBank(bank) });
  expect(wallet.status).toBe(201);
  return { customerId, email, walletId: (wallet.body as Body).id as string };
}

/** The wallet's charges at the stand-in, oldest first. */
const chargesOf = (walletId: string) => [...s.peer.payments.intents.values()].filter((i) => i.object === "payment_intent" && i.metadata.wallet_id === walletId);
const onlyCharge = (walletId: string) => {
  const [one, ...more] = chargesOf(walletId);
  expect(more).toEqual([]);
  if (!one) throw new Error("no charge");
  return one;
};
const balanceOf = async (walletId: string) => ((await api("GET", `/v1/wallets/${walletId}`)).body as Body).balance;
const movementsOf = async (walletId: string) => ((await api("GET", `/v1/wallets/${walletId}/transactions`)).body as { items: Array<{ type: string; amount: number; order_id: string | null }> }).items;
const paymentsOf = async (orderId: string) => (await s.sdk.payments.list({ orderId, sorting: ["created_at"] })).result.items;
const processed = (intentId: string, type: string, count = 1) =>
  until(async () => {
    const rows = await s.server.database.db.select().from(stripeEvent).where(and(eq(stripeEvent.objectId, intentId), eq(stripeEvent.type, type)));
    return rows.length >= count && rows.every((r) => r.processedAt) ? rows : undefined;
  }, `${type} processed`);
const autoRecharge = async (customerId: string, walletId: string) => (await portal(customerId, "GET", `/v1/customer-portal/wallets/${walletId}/auto-recharge`)).body as Body;
/** A seller's debit that spends the wallet (its ledger event makes the worker consider a recharge). */
const spend = (walletId: string, amount: number) => api("POST", `/v1/wallets/${walletId}/adjustments`, { amount: -amount, reason: "usage by hand" });
/** The server's stored answers to Idempotency-Keys lapse (24 hours later): a repeat reaches the wallet again. */
const forgetAnswers = () => s.server.database.db.update(idempotencyKey).set({ expiresAt: new Date(Date.now() - 1000) });
const settle = (intentId: string) => s.peer.payments.settleDebit(intentId);

/** Whether the wallet's row can be locked now (no transaction waits on Stripe with it). */
async function walletRowFree(walletId: string): Promise<boolean> {
  const db = s.server.database.db;
  const lock = (tx: Parameters<Parameters<typeof db.transaction>[0]>[0]) =>
    tx.select({ id: customerWallet.id }).from(customerWallet).where(eq(customerWallet.id, walletId)).for("update", { noWait: true });
  return db.transaction(async (tx) => (await lock(tx)).length === 1).catch(() => false);
}

/** The wallet's ledger events the outbox's fan-out has not committed yet. */
const unfannedOf = async (walletId: string) =>
  (await s.server.database.db.select({ id: outbox.id }).from(outbox).where(and(sql`${outbox.payload} ->> 'wallet_id' = ${walletId}`, sql`${outbox.processedAt} IS NULL`))).length;

/** Stripe sends the intent's succeeded event again (the same id) and another one for it (a new id). */
async function replay(intentId: string, type: string) {
  const [event] = await processed(intentId, type);
  const endpoint = [...s.peer.endpoints.values()][0];
  if (!endpoint || !event) throw new Error("no endpoint or event");
  const target = { secret: endpoint.secret, url: s.peer.rewriteUrl(endpoint.url), livemode: false };
  expect((await s.peer.deliver(target, { id: event.id, type, data: { object: { id: intentId } } })).status).toBe(200);
  expect((await s.peer.deliver(target, { type, data: { object: { id: intentId } } })).status).toBe(200);
  const rows = await processed(intentId, type, 2);
  expect(rows.map((r) => r.error)).toEqual(rows.map(() => null));
}

describe("wallet top-ups paid by a bank debit", () => {
  it("a US bank top-up answers 202 and waits pending; a retry charges nothing more; the bank's yes credits it once; replays change nothing", async () => {
    const { walletId } = await customerWithBank(STRIPE_BANK_ACCOUNTS.usSucceeds, "wallet-debit");
    const top = await api("POST", `/v1/wallets/${walletId}/top-up`, { amount: 2000 }, { "idempotency-key": "debit-1" });
    expect(top.status, JSON.stringify(top.body)).toBe(202);
    expect(top.body).toMatchObject({ id: walletId, balance: 0 });
    const intent = onlyCharge(walletId);
    expect([intent.status, intent.payment_method_types, intent.metadata.wallet_movement]).toEqual(["processing", ["us_bank_account"], "top_up:debit-1"]);
    const orderId = intent.metadata.order_id ?? "";
    expect(await s.sdk.orders.get({ id: orderId })).toMatchObject({ status: "pending", totalAmount: 2000, billingReason: "purchase" });
    expect(await paymentsOf(orderId)).toMatchObject([{ status: "pending", method: "us_bank_account", amount: 2000 }]);
    expect(await movementsOf(walletId)).toEqual([]);

    // the same key again: the first answer (the server's Idempotency-Key replay), nothing charged
    const again = await api("POST", `/v1/wallets/${walletId}/top-up`, { amount: 2000 }, { "idempotency-key": "debit-1" });
    expect([again.status, (again.body as Body).balance]).toEqual([202, 0]);
    // a day later the wallet itself answers the key: its top-up still on its way, nothing charged
    await forgetAnswers();
    const later = await api("POST", `/v1/wallets/${walletId}/top-up`, { amount: 2000 }, { "idempotency-key": "debit-1" });
    expect([later.status, (later.body as Body).balance]).toEqual([202, 0]);
    onlyCharge(walletId);

    settle(intent.id);
    await until(async () => ((await balanceOf(walletId)) === 2000 ? true : undefined), "the wallet credited");
    expect((await s.sdk.orders.get({ id: orderId })).status).toBe("paid");
    expect(await paymentsOf(orderId)).toMatchObject([{ status: "succeeded", method: "us_bank_account", declineReason: null }]);
    await replay(intent.id, "payment_intent.succeeded");
    expect(await balanceOf(walletId)).toBe(2000);
    expect((await movementsOf(walletId)).map((m) => [m.type, m.amount, m.order_id])).toEqual([["top_up", 2000, orderId]]);
    // the key credited: answered as done, nothing charged again
    await forgetAnswers();
    const done = await api("POST", `/v1/wallets/${walletId}/top-up`, { amount: 2000 }, { "idempotency-key": "debit-1" });
    expect([done.status, (done.body as Body).balance]).toEqual([200, 2000]);
    onlyCharge(walletId);
  }, 60_000);

  it("till customers wallet --top-up says the debit is processing, not that the wallet was topped up", async () => {
    const { customerId, walletId } = await customerWithBank(STRIPE_BANK_ACCOUNTS.usSucceeds, "wallet-debit-cli");
    const r = await till(["customers", "wallet", customerId, "--top-up", "1500", "--currency", "usd"], {
      configDir: tempConfigDir(),
      env: { TILL_API_KEY: s.key, TILL_SERVER: s.server.url, NO_COLOR: "1" },
    });
    expect([r.exitCode, r.stderr]).toEqual([0, expect.any(String)]);
    expect(r.stdout + r.stderr).toContain("The $15.00 debit from the customer's bank account is processing: the USD wallet is credited when the bank confirms it (the balance is $0.00 until then).");
    expect(r.stdout + r.stderr).not.toContain("Topped up");
    settle(onlyCharge(walletId).id);
    await until(async () => ((await balanceOf(walletId)) === 1500 ? true : undefined), "the wallet credited");
  }, 60_000);

  it("a SEPA top-up the bank refuses credits nothing; its order is void with the failed payment; the same key answers the refusal", async () => {
    const { customerId, walletId } = await customerWithBank(STRIPE_BANK_ACCOUNTS.sepaFails, "wallet-debit-no");
    const top = await api("POST", `/v1/wallets/${walletId}/top-up`, { amount: 1500 }, { "idempotency-key": "debit-no" });
    expect(top.status, JSON.stringify(top.body)).toBe(202);
    const intent = onlyCharge(walletId);
    const orderId = intent.metadata.order_id ?? "";
    settle(intent.id);
    await processed(intent.id, "payment_intent.payment_failed");
    expect(await paymentsOf(orderId)).toMatchObject([{ status: "failed", method: "sepa_debit", declineReason: "insufficient_funds" }]);
    // nothing will pay it: void (Polar's OrderStatus), not pending as if money were still owed
    expect((await s.sdk.orders.get({ id: orderId })).status).toBe("void");
    expect(await balanceOf(walletId)).toBe(0);
    expect(await movementsOf(walletId)).toEqual([]);
    // the same key is the same request: nothing charged again (a new attempt takes a new key)
    await forgetAnswers();
    const again = await api("POST", `/v1/wallets/${walletId}/top-up`, { amount: 1500 }, { "idempotency-key": "debit-no" });
    expect([again.status, (again.body as Body).error]).toEqual([402, "PaymentFailed"]);
    onlyCharge(walletId);
    // a seller's top-up is no auto-recharge: nothing is blocked
    expect((await autoRecharge(customerId, walletId)).blocked_at).toBeNull();
  }, 60_000);

  it.skipIf(!usingPostgres)("credits once when the bank's answer reaches till before the top-up that charged has committed", async () => {
    const { walletId } = await customerWithBank(STRIPE_BANK_ACCOUNTS.sepaSucceeds, "wallet-debit-early");
    const seen: string[] = [];
    s.peer.holdAnswer = async (req, answer) => {
      const held = answer as { object?: string; id?: string; status?: string; metadata?: Record<string, string> };
      if (req.method !== "POST" || held.object !== "payment_intent" || held.status !== "processing" || held.metadata?.wallet_id !== walletId) return;
      const id = String(held.id);
      settle(id);
      const ids = () => new Set(s.peer.events.filter((e) => e.type === "payment_intent.succeeded" && e.object.id === id).map((e) => e.id));
      await until(async () => (s.peer.deliveries.some((d) => ids().has(d.id) && d.status === 200) ? true : undefined), "the event recorded");
      seen.push("event recorded");
      await new Promise((r) => setTimeout(r, 500));
    };
    const top = await api("POST", `/v1/wallets/${walletId}/top-up`, { amount: 700 }, { "idempotency-key": "debit-early" });
    s.peer.holdAnswer = undefined;
    expect([top.status, seen]).toEqual([202, ["event recorded"]]);
    const intent = onlyCharge(walletId);
    await until(async () => ((await balanceOf(walletId)) === 700 ? true : undefined), "the wallet credited");
    const [row] = await processed(intent.id, "payment_intent.succeeded");
    expect(row?.error).toBeNull();
    expect((await s.sdk.orders.get({ id: intent.metadata.order_id ?? "" })).status).toBe("paid");
  }, 60_000);
});

describe("auto-recharge paid by a bank debit", () => {
  it("charges once while the debit is processing, however often the wallet is spent; the bank's yes credits it once", async () => {
    const { customerId, walletId } = await customerWithBank(STRIPE_BANK_ACCOUNTS.usSucceeds, "recharge-debit");
    expect((await api("POST", `/v1/wallets/${walletId}/adjustments`, { amount: 1000, reason: "opening credit" })).status).toBe(201);
    const set = await portal(customerId, "PUT", `/v1/customer-portal/wallets/${walletId}/auto-recharge`, { enabled: true, threshold_amount: 1500, amount: 2000 });
    expect(set.status).toBe(200);
    expect((await spend(walletId, 200)).status).toBe(201);
    const intent = await until(async () => chargesOf(walletId)[0], "the recharge's charge");
    expect([intent.status, intent.amount, intent.metadata.wallet_movement?.startsWith("auto_recharge:")]).toEqual(["processing", 2000, true]);
    // spent again while it is on its way: no second recharge
    expect((await spend(walletId, 100)).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1500));
    onlyCharge(walletId);
    expect(await balanceOf(walletId)).toBe(700);
    expect((await s.sdk.orders.get({ id: intent.metadata.order_id ?? "" })).status).toBe("pending");

    settle(intent.id);
    await until(async () => ((await balanceOf(walletId)) === 2700 ? true : undefined), "the wallet recharged");
    await replay(intent.id, "payment_intent.succeeded");
    expect(await balanceOf(walletId)).toBe(2700);
    expect((await movementsOf(walletId)).filter((m) => m.type === "auto_recharge").map((m) => m.amount)).toEqual([2000]);
    expect((await autoRecharge(customerId, walletId)).blocked_at).toBeNull();
    onlyCharge(walletId);
  }, 60_000);

  it("Stripe slow to answer the recharge holds up nothing: the spend's fan-out commits and the wallet's row is free meanwhile; the charge is recorded once Stripe answers", async () => {
    const { customerId, walletId } = await customerWithBank(STRIPE_BANK_ACCOUNTS.usSucceeds, "recharge-slow");
    expect((await api("POST", `/v1/wallets/${walletId}/adjustments`, { amount: 1000, reason: "opening credit" })).status).toBe(201);
    await portal(customerId, "PUT", `/v1/customer-portal/wallets/${walletId}/auto-recharge`, { enabled: true, threshold_amount: 1500, amount: 2000 });
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    let asked = false;
    s.peer.holdAnswer = async (req, body) => {
      const held = body as { object?: string; metadata?: Record<string, string> };
      if (req.method !== "POST" || held.object !== "payment_intent" || held.metadata?.wallet_id !== walletId) return;
      asked = true;
      await answered;
    };
    try {
      expect((await spend(walletId, 200)).status).toBe(201);
      await until(async () => (asked ? true : undefined), "the recharge's charge asked");
      // Stripe made the charge and holds its answer: the spend's events were fanned out (the job recorded, committed)
      // and no transaction holds the wallet's row across the call; nothing is credited or recorded yet
      await until(async () => ((await unfannedOf(walletId)) === 0 ? true : undefined), "the spend fanned out");
      expect(await walletRowFree(walletId)).toBe(true);
      expect(await balanceOf(walletId)).toBe(800);
    } finally {
      answer();
      s.peer.holdAnswer = undefined;
    }
    const intent = onlyCharge(walletId);
    await until(async () => ((await s.sdk.orders.list({ customerId })).result.items.some((o) => o.id === intent.metadata.order_id) ? true : undefined), "the recharge's order");
    expect((await s.sdk.orders.get({ id: intent.metadata.order_id ?? "" })).status).toBe("pending");
    settle(intent.id);
    await until(async () => ((await balanceOf(walletId)) === 2800 ? true : undefined), "the wallet recharged");
    expect((await movementsOf(walletId)).filter((m) => m.type === "auto_recharge").map((m) => m.amount)).toEqual([2000]);
    onlyCharge(walletId);
  }, 60_000);

  it("a refusal by the bank stops auto-recharge and emails the customer, as a card's decline does", async () => {
    const { customerId, email, walletId } = await customerWithBank(STRIPE_BANK_ACCOUNTS.sepaFails, "recharge-debit-no");
    await portal(customerId, "PUT", `/v1/customer-portal/wallets/${walletId}/auto-recharge`, { enabled: true, threshold_amount: 1500, amount: 2000 });
    expect((await api("POST", `/v1/wallets/${walletId}/adjustments`, { amount: 500, reason: "opening credit" })).status).toBe(201);
    expect((await spend(walletId, 100)).status).toBe(201);
    const intent = await until(async () => chargesOf(walletId)[0], "the recharge's charge");
    expect(intent.status).toBe("processing");
    // nothing is blocked while the bank has not answered
    expect((await autoRecharge(customerId, walletId)).blocked_at).toBeNull();
    settle(intent.id);
    await until(async () => ((await autoRecharge(customerId, walletId)).blocked_at ? true : undefined), "auto-recharge blocked");
    const mails = await s.server.database.db.select().from(customerEmail).where(and(eq(customerEmail.type, "wallet_recharge_failed"), eq(customerEmail.recipient, email)));
    expect(mails).toHaveLength(1);
    await replay(intent.id, "payment_intent.payment_failed");
    expect(await s.server.database.db.select().from(customerEmail).where(and(eq(customerEmail.type, "wallet_recharge_failed"), eq(customerEmail.recipient, email)))).toHaveLength(1);
    expect(await balanceOf(walletId)).toBe(400);
    // spent again: blocked until a method saved after the refusal (or the customer turns it on again)
    expect((await spend(walletId, 100)).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1500));
    onlyCharge(walletId);
    expect(await paymentsOf(intent.metadata.order_id ?? "")).toMatchObject([{ status: "failed", method: "sepa_debit" }]);
    expect((await s.sdk.orders.get({ id: intent.metadata.order_id ?? "" })).status).toBe("void");
  }, 60_000);
});
