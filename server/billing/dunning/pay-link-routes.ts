// The hosted pay page's routes (till's own, /v1/pay/{token}; the token in the path is the only credential): the
// order as the page shows it, the test processor's card tokenizer, the payment, and its status after 3-D Secure.
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { serverPaymentProcessor } from "../../payments/index.js";
import type { BillingDeps } from "../deps.js";
import { invalid, notFound, validationError } from "../errors.js";
import { route, type V1App } from "../contract.js";
import { bankTransferRefused, manualRetryLimitExceeded, notEligibleForRetry, payLinkBusy } from "./errors.js";
import * as pay from "./pay-link.js";

const PayInput = z.object({ confirmation_token_id: z.string().min(1).max(1024) });
const TestCardInput = z.object({
  number: z.string().min(1).max(32),
  exp_month: z.int().min(1).max(12),
  exp_year: z.int().min(0).max(9999),
  cvc: z.string().regex(/^\d{3,4}$/, "Your card's security code is invalid."),
});
const TestCardToken = z.object({
  confirmation_token_id: z.string(),
  card: z.object({ brand: z.string(), last4: z.string(), exp_month: z.int(), exp_year: z.int() }),
});

/** The hosted page's view of the order (PayPage). */
const PayPage = z.object({
  order: z.object({
    id: z.string(),
    created_at: z.string(),
    status: z.string(),
    paid: z.boolean(),
    invoice_number: z.string(),
    billing_reason: z.string(),
    due_at: z.string().nullable(),
    currency: z.string(),
    total_amount: z.int(),
    due_amount: z.int(),
  }),
  organization: z.object({ name: z.string(), avatar_url: z.string().nullable() }),
  processor: z.object({ processor: z.enum(["stripe", "test"]), publishable_key: z.string().nullable() }),
  /** A bank transfer to the seller's Stripe account (customer balance): offered for this order, and started already. */
  bank_transfer: z.object({ offered: z.boolean(), started: z.boolean() }),
  /** A bank debit of the order is on its way: nothing to pay until the bank answers (no card, no transfer then). */
  debit_processing: z.boolean(),
  payment: z.object({ status: z.string(), error: z.string().nullable(), decline_reason: z.string().nullable() }),
});

/** Where the customer sends the money (Stripe's display_bank_transfer_instructions), while it is awaited. */
const BankTransfer = z.object({
  status: z.enum(["awaiting_transfer", "processing"]),
  instructions: z
    .object({
      type: z.string(),
      amount_remaining: z.int(),
      currency: z.string(),
      reference: z.string().nullable(),
      hosted_instructions_url: z.string().nullable(),
      financial_addresses: z.array(z.object({
        type: z.string(),
        supported_networks: z.array(z.string()),
        details: z.array(z.object({ name: z.string(), value: z.string() })),
      })),
    })
    .nullable(),
});

/** The token from the path; a long one is not looked at (it is no token of ours). */
function tokenOf(req: FastifyRequest): string {
  const token = String((req.params as { token?: unknown }).token ?? "");
  if (token.length > 200) throw notFound("This pay link is not valid or has expired.");
  return token;
}

export function payLinkRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const deps = { db, processor: serverPaymentProcessor(config, secret), baseURL: config.baseURL };
  const open = { caller: "none" as const };
  app.get("/pay/:token", route({ ...open, operationId: "till:pay_links:get", responses: { 200: PayPage, 404: notFound } }), async (req) =>
    pay.payPage(deps, tokenOf(req)),
  );
  app.post("/pay/:token/test-card", route({
    ...open, operationId: "till:pay_links:test_card", body: TestCardInput,
    responses: { 200: TestCardToken, 404: notFound, 422: validationError },
  }), async (req) => {
    const token = tokenOf(req);
    if (deps.processor.id !== "test") throw invalid(["body"], "The server does not use the test payment processor.");
    return pay.payTestCard(deps, token, req.body);
  });
  app.post("/pay/:token/confirm", route({
    ...open, operationId: "till:pay_links:confirm", body: PayInput,
    responses: { 200: "CustomerOrderPaymentConfirmation", 404: notFound, 409: payLinkBusy, 422: notEligibleForRetry, 429: manualRetryLimitExceeded },
  }), async (req) => pay.payByLink(deps, tokenOf(req), req.body));
  app.post("/pay/:token/bank-transfer", route({
    ...open, operationId: "till:pay_links:bank_transfer", emptyJsonBody: true,
    responses: { 200: BankTransfer, 404: notFound, 409: bankTransferRefused, 422: notEligibleForRetry },
  }), async (req) => pay.payLinkBankTransfer(deps, tokenOf(req)));
  app.get("/pay/:token/payment-status", route({
    ...open, operationId: "till:pay_links:payment_status", responses: { 200: "CustomerOrderPaymentStatus", 404: notFound },
  }), async (req) => pay.payLinkStatus(deps, tokenOf(req)));
}
