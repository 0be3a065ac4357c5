// POST /v1/stripe/reconcile (till's own, not Polar's): compares till's payments with the connected processor
// account's over a window and answers every difference (`till payments reconcile`; the path and shapes are
// Stripe's, the comparison the adapter's). A POST because it is a run that reads another system, bounded in what it
// reads; it changes nothing.
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { datetimeInput } from "../http.js";
import { badGateway, invalid, notFound, notPermitted, validationError } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { serverProcessorAccounts } from "../../payments/index.js";
import { paymentsOfProcessorSince } from "../payments/service.js";
import { importedProcessorCustomers } from "../imports/service.js";
import { route, type V1App } from "../contract.js";

/** The longest window one run reads. */
const MAX_DAYS = 400;

const ReconcileInput = z.object({ since: datetimeInput.optional() }).strict();

const Side = z.object({ amount: z.int(), currency: z.string(), status: z.string() });
/** The answer of a run: every difference between till's payments and Stripe's over the window. */
const Reconciliation = z.looseObject({
  since: z.iso.datetime(),
  until: z.iso.datetime(),
  compared: z.object({ till_payments: z.int(), stripe_payment_intents: z.int(), stripe_charges: z.int() }),
  truncated: z.boolean(),
  differences: z.array(
    z.looseObject({
      kind: z.enum(["amount_mismatch", "status_mismatch", "missing_in_stripe", "missing_in_till"]),
      stripe_id: z.string(),
      payment_id: z.uuid().nullable(),
      order_id: z.uuid().nullable(),
      till: Side.nullable(),
      stripe: Side.extend({ object: z.enum(["payment_intent", "charge"]) }).nullable(),
      message: z.string(),
    }),
  ),
});

export function processorEventRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const accounts = serverProcessorAccounts(config, secret);
  const contract = route({
    scope: "orders:read",
    operationId: "till:stripe:reconcile",
    summary: "Compare till's payments with the Stripe account's",
    body: ReconcileInput,
    responses: { 200: Reconciliation, 403: notPermitted, 422: validationError },
  });
  app.post("/stripe/reconcile", contract, async (req) => {
    const input = req.body;
    const now = new Date();
    const since = input.since ? new Date(input.since) : new Date(now.getTime() - 30 * 86400_000);
    if (since.getTime() > now.getTime()) throw invalid(["body", "since"], "Input should be in the past");
    if (now.getTime() - since.getTime() > MAX_DAYS * 86400_000) throw invalid(["body", "since"], `Input should be at most ${MAX_DAYS} days ago`);
    const { organizationId } = scopeOf(req);
    const read = (processor: string, max: number) => paymentsOfProcessorSince(db, organizationId, processor, since, max);
    const result = await accounts.reconcile(db, organizationId, { since, until: now }, read, (processor) => importedProcessorCustomers(db, organizationId, processor));
    if (result.ok) return result.reconciliation;
    throw result.status === 404 ? notFound(result.detail) : badGateway(result.detail);
  });
}
