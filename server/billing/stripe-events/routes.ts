// POST /v1/stripe/reconcile (till's own, not Polar's): compares till's payments with the connected Stripe
// account's over a window and answers every difference (`till payments reconcile`). A POST because it is a run
// that reads another system, bounded in what it reads; it changes nothing.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { datetimeInput, parseBody } from "../http.js";
import { invalid } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { reconcile } from "./reconcile.js";

/** The longest window one run reads. */
const MAX_DAYS = 400;

const ReconcileInput = z.object({ since: datetimeInput.optional() }).strict();

export function stripeEventRoutes(app: FastifyInstance, { db, config, secret }: BillingDeps): void {
  app.post("/stripe/reconcile", { config: { scope: "orders:read" } }, async (req) => {
    const input = parseBody(ReconcileInput, req);
    const now = new Date();
    const since = input.since ? new Date(input.since) : new Date(now.getTime() - 30 * 86400_000);
    if (since.getTime() > now.getTime()) throw invalid(["body", "since"], "Input should be in the past");
    if (now.getTime() - since.getTime() > MAX_DAYS * 86400_000) throw invalid(["body", "since"], `Input should be at most ${MAX_DAYS} days ago`);
    return reconcile({ db, secret, stripeApiUrl: config.payments.stripeApiUrl }, scopeOf(req).organizationId, since, now);
  });
}
