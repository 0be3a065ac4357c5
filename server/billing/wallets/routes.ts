// Wallets. The seller's: GET /v1/wallets/ and /v1/wallets/{id} (Polar's `wallets:list`/`wallets:get`,
// which the pinned SDKs do not model: the answers are Polar's Wallet shape), and till's own POST /v1/wallets/ (the
// customer's wallet in a currency, made empty when missing), POST /v1/wallets/{id}/top-up (charges the saved
// card), POST /v1/wallets/{id}/adjustments (a credit or debit by hand, with a reason) and
// GET /v1/wallets/{id}/transactions. Scopes: customers:read / customers:write (till has no wallets
// scope). The customer's own, with a customer session: Polar's `customerPortal.wallets.list/get`, and till's
// transactions and auto-recharge settings.
import { randomUUID } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { withCallTurn } from "../../db/call-turns.js";
import { serverPaymentProcessor } from "../../payments/index.js";
import type { BillingDeps } from "../deps.js";
import { isUuid, page, paginationQuery, pathId, queryArray } from "../http.js";
import { sortingQuery } from "../listing.js";
import { paymentFailed } from "../payments/errors.js";
import { invalid, notFound, unauthorized, validationError } from "../errors.js";
import { formatMoney } from "../../../shared/money.js";
import { scopeOf } from "../route-auth.js";
import { portalAuth, portalOf } from "../customer-portal/routes.js";
import { orgNow } from "../clock.js";
import { route, type V1App } from "../contract.js";
import { IDEMPOTENCY_HEADER } from "../../http/idempotency.js";
import { chargeIntoWallet } from "./charge.js";
import * as service from "./service.js";
import { lockWallet } from "./repository.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const MAX_AMOUNT = 99_999_999;

const Wallet = z.object({ id: z.string(), created_at: z.string(), modified_at: z.string().nullable(), customer_id: z.string(), balance: z.int(), currency: z.string() });
const pagination = z.object({ total_count: z.int(), max_page: z.int() });
const ListResourceWallet = z.object({ items: z.array(Wallet), pagination });
const WalletTransaction = z.object({
  id: z.string(),
  created_at: z.string(),
  wallet_id: z.string(),
  type: z.enum(service.TRANSACTION_TYPES),
  amount: z.int(),
  currency: z.string(),
  description: z.string(),
  product_name: z.string().nullable(),
  order_id: z.string().nullable(),
});
const ListResourceWalletTransaction = z.object({ items: z.array(WalletTransaction), pagination });
const CreditOffers = z.array(z.object({ checkout_link_id: z.string(), product_id: z.string(), name: z.string(), url: z.string() }));
const AutoRecharge = z.object({ wallet_id: z.string(), enabled: z.boolean(), threshold_amount: z.int(), amount: z.int(), blocked_at: z.string().nullable() });

const sorting = sortingQuery(["created_at", "balance"], [{ key: "created_at", desc: false }]);
const WalletsQuery = z.object({ organization_id: queryArray(uuid).optional(), customer_id: queryArray(uuid).optional(), sorting, ...paginationQuery });
const PortalWalletsQuery = z.object({ sorting, ...paginationQuery });
const PageQuery = z.object(paginationQuery);
const WalletCreate = z.object({ customer_id: uuid, currency: z.string().regex(/^[A-Za-z]{3}$/, "A three-letter currency code") });
const TopUpInput = z.object({ amount: z.int().min(1).max(MAX_AMOUNT) });
const AdjustmentInput = z.object({
  amount: z
    .int()
    .min(-MAX_AMOUNT)
    .max(MAX_AMOUNT)
    .refine((n) => n !== 0, { message: "An adjustment moves the balance: a positive amount credits, a negative one debits" }),
  reason: z.string().trim().min(1).max(500),
});
const AutoRechargeInput = z.object({
  enabled: z.boolean().optional(),
  threshold_amount: z.int().min(0).max(MAX_AMOUNT).optional(),
  amount: z.int().min(1).max(MAX_AMOUNT).optional(),
});

const NOT_FOUND = { 404: notFound, 422: validationError } as const;

export function walletRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const processor = serverPaymentProcessor(config, secret);
  const org = (req: FastifyRequest) => scopeOf(req).organizationId;

  app.get("/wallets/", route({ scope: "customers:read", operationId: "wallets:list", query: WalletsQuery, responses: { 200: ListResourceWallet, 422: validationError } }), async (req) => {
    const q = req.query;
    const organizationId = org(req);
    if (q.organization_id && !q.organization_id.map((i) => i.toLowerCase()).includes(organizationId)) return page([], 0, q.limit);
    const { items, total } = await service.listWallets(db, organizationId, { customerIds: q.customer_id?.map((i) => i.toLowerCase()) }, q.sorting, q.page, q.limit);
    return page(items, total, q.limit);
  });
  app.get("/wallets/:id", route({ scope: "customers:read", operationId: "wallets:get", responses: { 200: Wallet, ...NOT_FOUND } }), async (req) =>
    service.walletWire(await service.findWallet(db, org(req), pathId(req))),
  );
  app.post("/wallets/", route({ scope: "customers:write", operationId: "till:wallets:create", body: WalletCreate, responses: { 201: Wallet, ...NOT_FOUND } }), async (req, reply) => {
    const organizationId = org(req);
    const w = await service.openWallet(db, organizationId, req.body.customer_id.toLowerCase(), req.body.currency, await orgNow(db, organizationId));
    reply.status(201);
    return service.walletWire(w);
  });
  // a bank debit on its way answers 202 with the wallet as it is: the bank's answer credits it (wallets/late.ts)
  app.post("/wallets/:id/top-up", route({
    scope: "customers:write", operationId: "till:wallets:top_up", body: TopUpInput,
    responses: { 200: Wallet, 202: Wallet, 402: paymentFailed, ...NOT_FOUND },
  }), async (req, reply) => {
    const organizationId = org(req);
    const id = pathId(req);
    const header = req.headers[IDEMPOTENCY_HEADER];
    const key = `top_up:${typeof header === "string" && header ? header : randomUUID()}`;
    // the charge is made under the wallet's lock: in one of the pool's turns (db/call-turns.ts)
    return withCallTurn(db, () => db.transaction(async (tx) => {
      const w = await lockWallet(tx, organizationId, id);
      if (!w) return service.walletWire(await service.findWallet(tx, organizationId, id));
      // under the processor's minimum charge the top-up is refused when asked (a renewal carries such an amount
      // to the next invoice; a top-up has nothing to carry it to)
      const least = processor.minimumCharge(w.currency);
      if (req.body.amount < least) {
        const msg = `A top-up must be at least ${formatMoney(least, w.currency, "en")}, the smallest amount that can be charged in ${w.currency.toUpperCase()}.`;
        throw invalid(["body", "amount"], msg, "value_error", "amount_below_minimum");
      }
      const outcome = await chargeIntoWallet(tx, processor, w, { amount: req.body.amount, kind: "top_up", key }, await orgNow(tx, organizationId));
      if (!outcome.ok) throw paymentFailed(outcome.message, outcome.code);
      if (outcome.processing) reply.status(202);
      return service.walletWire(await service.findWallet(tx, organizationId, id));
    }));
  });
  app.post("/wallets/:id/adjustments", route({
    scope: "customers:write", operationId: "till:wallets:adjust", body: AdjustmentInput,
    responses: { 201: WalletTransaction, ...NOT_FOUND },
  }), async (req, reply) => {
    const header = req.headers[IDEMPOTENCY_HEADER];
    const key = typeof header === "string" && header ? header : randomUUID();
    const t = await service.adjustWallet(db, org(req), pathId(req), req.body, key);
    reply.status(201);
    return t;
  });
  app.get("/wallets/:id/transactions", route({
    scope: "customers:read", operationId: "till:wallets:list_transactions", query: PageQuery,
    responses: { 200: ListResourceWalletTransaction, ...NOT_FOUND },
  }), async (req) => {
    const { items, total } = await service.transactions(db, org(req), pathId(req), req.query.page, req.query.limit);
    return page(items, total, req.query.limit);
  });

  // the customer's own, with a customer session
  const portal = { caller: "customer_session" as const, preHandler: portalAuth(db) };
  const me = (req: FastifyRequest) => ({ organizationId: portalOf(req).organizationId, customerId: portalOf(req).customer.id });
  const base = "/customer-portal/wallets";
  app.get(`${base}/`, route({
    ...portal, operationId: "customer_portal:wallets:list", query: PortalWalletsQuery,
    responses: { 200: "ListResourceCustomerWallet", 401: unauthorized, 422: validationError },
  }), async (req) => {
    const m = me(req);
    const { items, total } = await service.listWallets(db, m.organizationId, { customerIds: [m.customerId] }, req.query.sorting, req.query.page, req.query.limit);
    return page(items, total, req.query.limit);
  });
  app.get(`${base}/credit-offers`, route({ ...portal, operationId: "till:customer_portal:wallets:credit_offers", responses: { 200: CreditOffers, 401: unauthorized } }), async (req) =>
    service.creditOffers(db, config.baseURL, me(req).organizationId),
  );
  app.get(`${base}/:id`, route({ ...portal, operationId: "customer_portal:wallets:get", responses: { 200: "CustomerWallet", 401: unauthorized, ...NOT_FOUND } }), async (req) => {
    const m = me(req);
    return service.walletWire(await service.findWallet(db, m.organizationId, pathId(req), m.customerId));
  });
  app.get(`${base}/:id/transactions`, route({
    ...portal, operationId: "till:customer_portal:wallets:list_transactions", query: PageQuery,
    responses: { 200: ListResourceWalletTransaction, 401: unauthorized, ...NOT_FOUND },
  }), async (req) => {
    const m = me(req);
    const { items, total } = await service.transactions(db, m.organizationId, pathId(req), req.query.page, req.query.limit, m.customerId);
    return page(items, total, req.query.limit);
  });
  app.get(`${base}/:id/auto-recharge`, route({
    ...portal, operationId: "till:customer_portal:wallets:get_auto_recharge",
    responses: { 200: AutoRecharge, 401: unauthorized, ...NOT_FOUND },
  }), async (req) => {
    const m = me(req);
    return service.autoRechargeWire(await service.findWallet(db, m.organizationId, pathId(req), m.customerId));
  });
  app.put(`${base}/:id/auto-recharge`, route({
    ...portal, operationId: "till:customer_portal:wallets:update_auto_recharge", body: AutoRechargeInput,
    responses: { 200: AutoRecharge, 401: unauthorized, ...NOT_FOUND },
  }), async (req) => {
    const m = me(req);
    return service.setAutoRecharge(db, m.organizationId, pathId(req), req.body, await orgNow(db, m.organizationId), m.customerId);
  });
}
