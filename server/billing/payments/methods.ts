// A customer's saved payment methods: listed, added with a processor token (the card
// itself never reaches till: only brand, last four digits and expiry are stored), set up with the customer when the
// processor asks (3-D Secure, a bank's microdeposits), kept when the processor finishes a setup later, made the
// default, removed. The charges of a saved method and their records are service.ts's.
import { createHash } from "node:crypto";
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { processorFor, type NextAction, type PaymentProcessor, type PaymentResult } from "../../payments/processor.js";
import { processorCustomerOf, rememberProcessorCustomer } from "../../payments/customers.js";
import { findCustomerRow, type CustomerRef } from "../customers/service.js";
import { invalid, notFound } from "../errors.js";
import { paymentMethodInUse, paymentMethodSetupFailed } from "./errors.js";
import * as repo from "./repository.js";
import { iso, toPaymentMethodWire, type PaymentMethodRow } from "./service.js";

/**
 * A refused setup, answered in the shape each method's SDK models: `addPaymentMethod` declares 400
 * PaymentMethodSetupFailed; `confirmPaymentMethod` declares only 400 CustomerNotReady and 422, so a refused
 * confirm is a 422 on the `setup_intent_id` it was given (both SDK versions parse it as HTTPValidationError).
 */
export type SetupRefusal = "add" | "confirm";
const setupFailed = (detail: string, how: SetupRefusal) =>
  how === "add" ? paymentMethodSetupFailed(detail) : invalid(["body", "setup_intent_id"], detail);

/**
 * What a setup waiting for the customer's bank needs from the page (till's addition to Polar's requires_action
 * answer): the microdeposits to verify (when they arrive, Stripe's page for it, amounts or a code), or nothing to do
 * but wait (`processing`). Absent: the customer authenticates (3-D Secure, handleNextAction).
 */
export type SetupWait =
  | { type: "verify_with_microdeposits"; verify_with_microdeposits: { arrival_date: string | null; hosted_verification_url: string | null; microdeposit_type: "amounts" | "descriptor_code" } }
  | { type: "processing" };

function setupWaitOf(next: NextAction): SetupWait | undefined {
  const m = next.microdeposits;
  if (m) return { type: "verify_with_microdeposits", verify_with_microdeposits: { arrival_date: iso(m.arrivalDate), hosted_verification_url: m.hostedVerificationUrl, microdeposit_type: m.type } };
  return next.status === "processing" ? { type: "processing" } : undefined;
}

export const PaymentMethodCreateInput = z.object({
  confirmation_token_id: z.string().min(1).max(1024),
  set_default: z.boolean().default(true),
  return_url: z.string().max(2048).optional(),
});
export const PaymentMethodConfirmInput = z.object({
  setup_intent_id: z.string().min(1).max(1024),
  set_default: z.boolean().default(true),
});

export interface PaymentsDeps {
  db: Db;
  processor: PaymentProcessor;
}

/** The customer's methods, the ones their checkouts saved included. */
export async function listCustomerMethods(deps: PaymentsDeps, organizationId: string, customerId: string, pageNo: number, limit: number) {
  // kept as the organization's processor's (a Stripe account's methods are detached there when removed)
  await repo.adoptCheckoutMethods(deps.db, organizationId, customerId, (await processorFor(deps.processor, deps.db, organizationId)).id);
  const { rows, total } = await repo.listMethods(deps.db, organizationId, customerId, limit, (pageNo - 1) * limit);
  return { items: rows.map(toPaymentMethodWire), total };
}

/** The seller's view: the customer by id or external id (another organization's: 404). */
export async function listMethodsOf(deps: PaymentsDeps, organizationId: string, ref: CustomerRef, pageNo: number, limit: number) {
  const found = await findCustomerRow(deps.db, organizationId, ref);
  return listCustomerMethods(deps, organizationId, found.id, pageNo, limit);
}

/**
 * Saves the card behind a processor token for the customer (a setup: nothing is charged), through the
 * organization's processor: with Stripe, a SetupIntent on the customer's Stripe customer. A setup that needs the
 * customer (3-D Secure) answers `requires_action` with the intent's client secret; the page runs Stripe.js's
 * handleNextAction and confirms with the SetupIntent's id (`how` = "confirm": its outcome is read from Stripe).
 * A setup that waits for the customer's bank — a US account entered by hand, verified by microdeposits days later,
 * or one still processing — answers `requires_action` too, with what the page tells the customer (`next_action`,
 * till's addition the SDKs ignore); Stripe's setup_intent.succeeded keeps the method once it ends (keepFinishedSetup).
 */
export async function addMethod(
  deps: PaymentsDeps,
  organizationId: string,
  customerId: string,
  token: string,
  makeDefault: boolean,
  how: SetupRefusal = "add",
): Promise<{ status: "succeeded"; payment_method: ReturnType<typeof toPaymentMethodWire> } | { status: "requires_action"; client_secret: string; next_action?: SetupWait }> {
  const processor = await processorFor(deps.processor, deps.db, organizationId);
  const keeps = processor.id !== "test";
  const processorCustomerId = keeps ? await processorCustomerOf(deps.db, organizationId, customerId, processor.id) : null;
  const found = keeps ? await findCustomerRow(deps.db, organizationId, { id: customerId }) : null;
  const saved =
    how === "confirm" && token.startsWith("seti_")
      ? await processor.setupOutcome(token)
      : await processor.pay({
          confirmationTokenId: token,
          amount: 0,
          currency: "usd",
          description: "Payment method",
          setupFutureUsage: true,
          metadata: { customer_id: customerId },
          ...(found ? { customer: { id: customerId, email: found.email, name: found.name, processorCustomerId } } : {}),
          idempotencyKey: `till-portal-${customerId}-${createHash("sha256").update(token).digest("hex").slice(0, 32)}`,
        });
  if (!saved.ok && saved.next) {
    // the Stripe customer made for it is kept now: the confirm after the action (and the setup's event) check the setup
    // is this customer's
    if (saved.next.processorCustomerId && !processorCustomerId) await rememberProcessorCustomer(deps.db, organizationId, customerId, processor.id, saved.next.processorCustomerId);
    const wait = setupWaitOf(saved.next);
    return { status: "requires_action", client_secret: saved.next.clientSecret, ...(wait ? { next_action: wait } : {}) };
  }
  if (!saved.ok) throw setupFailed(saved.message, how);
  // a setup needing the customer's action kept its Stripe customer before answering, so the read above has it
  if (how === "confirm" && keeps && saved.processorCustomerId !== processorCustomerId) {
    throw setupFailed("This setup is not one of yours.", how);
  }
  const row = await saveMethod(deps.db, organizationId, customerId, processor.id, saved, makeDefault, "upsert");
  if (!row) throw new Error("addMethod: the method is missing after its upsert");
  if (row.isDefault) await mirrorDefault(processor, deps.db, organizationId, customerId, row.processorMethodId);
  return { status: "succeeded" as const, payment_method: toPaymentMethodWire(row) };
}

/**
 * Keeps a finished setup's method for the customer (once per processor method), the default when asked or when none
 * is. `upsert`: the customer adds it (again: a removed one comes back); `if_absent`: an event's, which neither brings
 * back a removed method nor touches a kept one (undefined then).
 */
async function saveMethod(
  db: Db,
  organizationId: string,
  customerId: string,
  processorId: string,
  saved: Extract<PaymentResult, { ok: true }>,
  makeDefault: boolean,
  how: "upsert" | "if_absent",
): Promise<PaymentMethodRow | undefined> {
  const now = new Date();
  return db.transaction(async (tx) => {
    await repo.adoptCheckoutMethods(tx, organizationId, customerId, processorId);
    if (saved.processorCustomerId) await rememberProcessorCustomer(tx, organizationId, customerId, processorId, saved.processorCustomerId);
    const values = {
      organizationId,
      customerId,
      processor: processorId,
      processorMethodId: saved.paymentMethodId,
      type: saved.paymentMethod.method ?? "card",
      brand: saved.paymentMethod.brand,
      last4: saved.paymentMethod.last4,
      expMonth: saved.paymentMethod.expMonth,
      expYear: saved.paymentMethod.expYear,
      createdAt: now,
    };
    const method = how === "upsert" ? await repo.upsertMethod(tx, values, now) : await repo.insertMethodIfAbsent(tx, values);
    if (!method) return undefined;
    const current = await repo.chargeableMethod(tx, organizationId, customerId);
    if (makeDefault || !current?.isDefault) await repo.setDefault(tx, organizationId, customerId, method.id, now);
    return (await repo.findMethod(tx, organizationId, customerId, method.id)) ?? method;
  });
}

/**
 * A portal setup the processor finished after the portal's request answered (Stripe's setup_intent.succeeded: the
 * customer authenticated, a bank account verified): its method is kept for the customer even when the page never
 * confirms it — once (a replay, or the page's confirm after it, finds it kept). Only a setup on the processor
 * customer till keeps for this customer counts. Answers whether it was kept.
 */
export async function keepFinishedSetup(deps: PaymentsDeps, organizationId: string, customerId: string, result: PaymentResult): Promise<boolean> {
  if (!result.ok) return false;
  const processor = await processorFor(deps.processor, deps.db, organizationId);
  const known = await processorCustomerOf(deps.db, organizationId, customerId, processor.id);
  if (!known || result.processorCustomerId !== known) return false;
  const row = await saveMethod(deps.db, organizationId, customerId, processor.id, result, false, "if_absent");
  if (!row) return false;
  if (row.isDefault) await mirrorDefault(processor, deps.db, organizationId, customerId, row.processorMethodId);
  return true;
}

/** The processor's customer gets the same default (best effort: till's own default is what renewals charge). */
async function mirrorDefault(processor: PaymentProcessor, db: Queryable, organizationId: string, customerId: string, processorMethodId: string) {
  const processorCustomerId = await processorCustomerOf(db, organizationId, customerId, processor.id);
  if (processorCustomerId) await processor.setDefault(processorCustomerId, processorMethodId).catch(() => undefined);
}

/** Makes a saved method the one renewals charge (and the Stripe customer's default). */
export async function makeDefault(db: Db, organizationId: string, customerId: string, id: string, router?: PaymentProcessor) {
  const now = new Date();
  const wire = await db.transaction(async (tx) => {
    const row = await repo.findMethod(tx, organizationId, customerId, id);
    if (!row) throw notFound("Payment method not found");
    await repo.setDefault(tx, organizationId, customerId, id, now);
    // what the UPDATE made of it: a method already the default is left as it was
    return row.isDefault ? row : { ...row, isDefault: true, modifiedAt: now };
  });
  if (router) await mirrorDefault(await processorFor(router, db, organizationId), db, organizationId, customerId, wire.processorMethodId);
  return toPaymentMethodWire(wire);
}

/** Removes a method; the last one of a customer whose subscription will be charged again stays (400). */
export async function deleteMethod(deps: PaymentsDeps, organizationId: string, customerId: string, id: string): Promise<void> {
  const processor = await processorFor(deps.processor, deps.db, organizationId);
  await repo.adoptCheckoutMethods(deps.db, organizationId, customerId, processor.id);
  const removed = await deps.db.transaction(async (tx) => {
    const row = await repo.findMethod(tx, organizationId, customerId, id);
    if (!row) throw notFound("Payment method not found");
    if ((await repo.otherMethodCount(tx, organizationId, customerId, id)) === 0 && (await repo.hasBillableSubscription(tx, organizationId, customerId))) {
      throw paymentMethodInUse();
    }
    await repo.removeMethod(tx, organizationId, customerId, id, new Date());
    return row;
  });
  // detached in Stripe too: it can be charged no more
  if (removed.processor === processor.id) await processor.detach(removed.processorMethodId);
}

/** A method saved at the processor before till knew the customer (an import): what can be shown of it. */
export interface AdoptedMethod {
  processorMethodId: string;
  type: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

/**
 * Keeps a method the customer saved at the processor outside till (an imported business's), by reference, as the
 * customer's default, with the processor's customer it is attached to: renewals charge it off-session.
 */
export async function adoptSavedMethod(tx: Queryable, organizationId: string, customerId: string, processorId: string, processorCustomerId: string, m: AdoptedMethod): Promise<void> {
  const now = new Date();
  await rememberProcessorCustomer(tx, organizationId, customerId, processorId, processorCustomerId);
  const method = await repo.upsertMethod(tx, { organizationId, customerId, processor: processorId, ...m, createdAt: now }, now);
  await repo.setDefault(tx, organizationId, customerId, method.id, now);
}
