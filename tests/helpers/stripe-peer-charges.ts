// The Stripe stand-in's money after the sale (never shipped), written from Stripe's API reference for what till
// reads there: charges (list, retrieve), payment_intents (list), refunds (list, retrieve), disputes (list,
// retrieve, close), events (retrieve); and the test's controls, as methods and as `/test-control/…` routes:
// a succeeded PaymentIntent with its charge, a refund made in the dashboard (charge.refunded + refund.created),
// a dispute opened, updated and closed (charge.dispute.*). Each control emits Stripe's signed events to the
// account's registered endpoints (or holds them, for a test that delivers them in another order). Lists are
// Stripe's (`{object:"list",data,has_more,url}`, newest first, starting_after/ending_before, created[gte|lte]),
// and a parameter Stripe does not take is its 400.
import { randomBytes } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { StripeFailure, type Authed, type PeerRoute, type StripePeer } from "./stripe-peer.js";
import type { PaymentObjects } from "./stripe-peer-payments.js";

const rid = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;
const nowS = () => Math.floor(Date.now() / 1000);

interface Owned {
  account: string;
  livemode: boolean;
}

export interface PeerPaymentIntent extends Owned {
  id: string;
  object: "payment_intent";
  /** The customer it was taken from (Stripe's cus_…); null when none. */
  customer?: string | null;
  amount: number;
  amount_received: number;
  currency: string;
  status: string;
  created: number;
  latest_charge: string | null;
  metadata: Record<string, string>;
}

export interface PeerCharge extends Owned {
  id: string;
  object: "charge";
  customer?: string | null;
  amount: number;
  amount_refunded: number;
  refunded: boolean;
  captured: boolean;
  paid: boolean;
  disputed: boolean;
  currency: string;
  status: string;
  created: number;
  payment_intent: string | null;
  metadata: Record<string, string>;
}

export interface PeerRefund extends Owned {
  id: string;
  object: "refund";
  amount: number;
  charge: string;
  payment_intent: string | null;
  currency: string;
  status: string;
  /** Why the refund failed or was canceled (Stripe's failure_reason); null otherwise. */
  failure_reason: string | null;
  reason: string | null;
  created: number;
  metadata: Record<string, string>;
}

export interface PeerDispute extends Owned {
  id: string;
  object: "dispute";
  amount: number;
  charge: string;
  payment_intent: string | null;
  currency: string;
  status: string;
  reason: string;
  created: number;
  evidence_details: { due_by: number | null; has_evidence: boolean; past_due: boolean; submission_count: number };
  balance_transactions: Array<{ id: string; object: "balance_transaction"; amount: number; fee: number; currency: string; reporting_category: string }>;
  is_charge_refundable: boolean;
  metadata: Record<string, string>;
}

export interface PeerEvent extends Owned {
  id: string;
  object: "event";
  type: string;
  created: number;
  data: { object: unknown };
}

type Stored = PeerPaymentIntent | PeerCharge | PeerRefund | PeerDispute | PeerEvent;

/** Strips the stand-in's bookkeeping (account) from an object as Stripe shows it. */
const shown = <T extends Owned>(o: T) => {
  const { account: _account, ...rest } = o;
  return rest;
};

export class PeerCharges {
  readonly paymentIntents = new Map<string, PeerPaymentIntent>();
  readonly charges = new Map<string, PeerCharge>();
  readonly refunds = new Map<string, PeerRefund>();
  readonly disputes = new Map<string, PeerDispute>();
  readonly events = new Map<string, PeerEvent>();
  /** Where events go instead of the endpoint's own origin (till's public URL in tests is not the test server's). */
  deliverToOrigin: string | undefined;
  /** Every delivery made: the event, the HTTP status till answered. */
  readonly deliveries: Array<{ event: PeerEvent; status: number }> = [];

  /**
   * `followPayments`: the stand-in's own PaymentIntents (stripe-peer-payments.ts, what till's adapter makes) are
   * charges here too once they succeed, and a refund made through the API refunds that charge (`charge.refunded`,
   * as Stripe sends it): a dashboard refund or a dispute can then be made of a payment till took.
   */
  constructor(
    private readonly peer: StripePeer,
    opts: { followPayments?: boolean } = {},
  ) {
    peer.extensions.push((route) => {
      this.routes(route);
      if (opts.followPayments) this.follow(peer.payments);
    });
  }

  private follow(payments: PaymentObjects): void {
    payments.hooks.charged.push((auth, intent) => {
      const owner = { account: auth.account.id, livemode: auth.livemode };
      const amount = Number(intent.amount);
      const currency = String(intent.currency);
      const chargeId = String(intent.latest_charge);
      const pi: PeerPaymentIntent = {
        ...owner, id: intent.id, object: "payment_intent", amount, amount_received: amount, currency,
        status: "succeeded", created: nowS(), latest_charge: chargeId, metadata: intent.metadata, customer: intent.customer ?? null,
      };
      this.paymentIntents.set(pi.id, pi);
      this.charges.set(chargeId, {
        ...owner, id: chargeId, object: "charge", amount, amount_refunded: 0, refunded: false, captured: true,
        paid: true, disputed: false, currency, status: "succeeded", created: pi.created, payment_intent: pi.id,
        metadata: intent.metadata, customer: intent.customer ?? null,
      });
    });
    payments.hooks.refunded.push((auth, made) => {
      const charge = this.charges.get(String(made.charge));
      if (!charge) return;
      const status = typeof made.status === "string" ? made.status : "succeeded";
      const refund: PeerRefund = {
        account: charge.account, livemode: charge.livemode, id: made.id, object: "refund", amount: Number(made.amount),
        charge: charge.id, payment_intent: charge.payment_intent, currency: charge.currency, status,
        failure_reason: null, reason: typeof made.reason === "string" ? made.reason : null, created: nowS(),
        metadata: (made.metadata ?? {}) as Record<string, string>,
      };
      this.refunds.set(refund.id, refund);
      // a pending refund counts in the charge's amount_refunded already, as Stripe's does
      charge.amount_refunded += refund.amount;
      charge.refunded = charge.amount_refunded >= charge.amount;
      this.peer.emit(auth, "charge.refunded", shown(charge));
    });
    payments.hooks.refundUpdated.push((_auth, made) => {
      const refund = this.refunds.get(made.id);
      if (!refund) return;
      refund.status = String(made.status);
      refund.failure_reason = typeof made.failure_reason === "string" ? made.failure_reason : null;
      const charge = this.charges.get(refund.charge);
      // a refund that failed or was canceled gives the charge its amount back
      if (charge && (refund.status === "failed" || refund.status === "canceled")) {
        charge.amount_refunded = Math.max(0, charge.amount_refunded - refund.amount);
        charge.refunded = charge.amount_refunded >= charge.amount;
      }
    });
  }

  // ---- the test's controls --------------------------------------------------------------------------------

  /** A PaymentIntent that succeeded, with its charge (as a confirmed payment leaves them). */
  createPayment(owner: Owned, p: { amount: number; currency?: string; status?: string; metadata?: Record<string, string> }): { paymentIntent: PeerPaymentIntent; charge: PeerCharge } {
    const currency = p.currency ?? "usd";
    const created = nowS();
    const status = p.status ?? "succeeded";
    const pi: PeerPaymentIntent = {
      ...owner, id: rid("pi"), object: "payment_intent", amount: p.amount,
      amount_received: status === "succeeded" ? p.amount : 0, currency, status, created, latest_charge: null,
      metadata: p.metadata ?? {},
    };
    const charge: PeerCharge = {
      ...owner, id: rid("ch"), object: "charge", amount: p.amount, amount_refunded: 0, refunded: false, captured: true,
      paid: status === "succeeded", disputed: false, currency, status: status === "succeeded" ? "succeeded" : "failed",
      created, payment_intent: pi.id, metadata: p.metadata ?? {},
    };
    pi.latest_charge = charge.id;
    this.paymentIntents.set(pi.id, pi);
    this.charges.set(charge.id, charge);
    return { paymentIntent: pi, charge };
  }

  /** A refund made in Stripe's dashboard: `charge.refunded` and `refund.created` (delivered unless held). */
  async refundInDashboard(chargeId: string, opts: { amount?: number; reason?: string; hold?: boolean } = {}): Promise<{ refund: PeerRefund; events: PeerEvent[] }> {
    const made = this.makeRefund(chargeId, opts);
    if (!opts.hold) await this.deliverAll(made.events);
    return made;
  }

  private makeRefund(chargeId: string, opts: { amount?: number; reason?: string }): { refund: PeerRefund; events: PeerEvent[] } {
    const charge = this.mustGet(this.charges, chargeId);
    const amount = opts.amount ?? charge.amount - charge.amount_refunded;
    const refund: PeerRefund = {
      account: charge.account, livemode: charge.livemode, id: rid("re"), object: "refund", amount, charge: charge.id,
      payment_intent: charge.payment_intent, currency: charge.currency, status: "succeeded", failure_reason: null,
      reason: opts.reason ?? "requested_by_customer", created: nowS(), metadata: {},
    };
    this.refunds.set(refund.id, refund);
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded >= charge.amount;
    return { refund, events: [this.event(charge, "charge.refunded", charge), this.event(charge, "refund.created", refund)] };
  }

  /** The customer's bank disputes the charge: `charge.dispute.created` and `charge.dispute.funds_withdrawn`. */
  async openDispute(chargeId: string, opts: { reason?: string; hold?: boolean } = {}): Promise<{ dispute: PeerDispute; events: PeerEvent[] }> {
    const made = this.makeDispute(chargeId, opts);
    if (!opts.hold) await this.deliverAll(made.events);
    return made;
  }

  private makeDispute(chargeId: string, opts: { reason?: string }): { dispute: PeerDispute; events: PeerEvent[] } {
    const charge = this.mustGet(this.charges, chargeId);
    const dispute: PeerDispute = {
      account: charge.account,
      livemode: charge.livemode,
      id: rid("dp"),
      object: "dispute",
      amount: charge.amount,
      charge: charge.id,
      payment_intent: charge.payment_intent,
      currency: charge.currency,
      status: "needs_response",
      reason: opts.reason ?? "fraudulent",
      created: nowS(),
      evidence_details: { due_by: nowS() + 14 * 86400, has_evidence: false, past_due: false, submission_count: 0 },
      balance_transactions: [{ id: rid("txn"), object: "balance_transaction", amount: -charge.amount, fee: 1500, currency: charge.currency, reporting_category: "dispute" }],
      is_charge_refundable: false,
      metadata: {},
    };
    this.disputes.set(dispute.id, dispute);
    charge.disputed = true;
    return { dispute, events: [this.event(charge, "charge.dispute.created", dispute), this.event(charge, "charge.dispute.funds_withdrawn", dispute)] };
  }

  /** The dispute moves on: under_review (evidence sent), then won or lost (`charge.dispute.updated`/`closed`). */
  async setDisputeStatus(disputeId: string, status: "under_review" | "won" | "lost", opts: { hold?: boolean } = {}): Promise<{ dispute: PeerDispute; events: PeerEvent[] }> {
    const made = this.moveDispute(disputeId, status);
    if (!opts.hold) await this.deliverAll(made.events);
    return made;
  }

  private moveDispute(disputeId: string, status: "under_review" | "won" | "lost"): { dispute: PeerDispute; events: PeerEvent[] } {
    const dispute = this.mustGet(this.disputes, disputeId);
    dispute.status = status;
    const events: PeerEvent[] = [];
    if (status === "under_review") {
      dispute.evidence_details.has_evidence = true;
      dispute.evidence_details.submission_count += 1;
      events.push(this.event(dispute, "charge.dispute.updated", dispute));
    } else {
      if (status === "won") {
        dispute.balance_transactions.push({ id: rid("txn"), object: "balance_transaction", amount: dispute.amount, fee: 0, currency: dispute.currency, reporting_category: "dispute_reversal" });
        events.push(this.event(dispute, "charge.dispute.funds_reinstated", dispute));
      }
      events.push(this.event(dispute, "charge.dispute.closed", dispute));
    }
    return { dispute, events };
  }

  /** Delivers events to every endpoint of their account and mode that takes their type, in the order given. */
  async deliverAll(events: PeerEvent[]): Promise<void> {
    for (const event of events) {
      for (const endpoint of this.peer.endpoints.values()) {
        if (endpoint.account !== event.account || endpoint.livemode !== event.livemode || !endpoint.enabled_events.includes(event.type)) continue;
        const url = this.deliverToOrigin ? `${this.deliverToOrigin}${new URL(endpoint.url).pathname}` : endpoint.url;
        const res = await this.peer.deliver({ ...endpoint, url }, { id: event.id, type: event.type, created: event.created, data: event.data });
        this.deliveries.push({ event, status: res.status });
      }
    }
  }

  // ---- the API --------------------------------------------------------------------------------------------

  private routes(route: PeerRoute): void {
    route("GET", "/v1/charges", "charge_read", (auth, req) => this.list(auth, req, this.charges, "/v1/charges"));
    route("GET", "/v1/charges/:id", "charge_read", (auth, req) => this.retrieve(auth, req, this.charges, "charge"));
    route("GET", "/v1/payment_intents", "payment_intent_read", (auth, req) => this.list(auth, req, this.paymentIntents, "/v1/payment_intents"));
    route("GET", "/v1/refunds", "refund_read", (auth, req) => this.list(auth, req, this.refunds, "/v1/refunds"));
    route("GET", "/v1/refunds/:id", "refund_read", (auth, req) => this.retrieve(auth, req, this.refunds, "refund"));
    route("GET", "/v1/disputes", "dispute_read", (auth, req) => this.list(auth, req, this.disputes, "/v1/disputes"));
    route("GET", "/v1/disputes/:id", "dispute_read", (auth, req) => this.retrieve(auth, req, this.disputes, "dispute"));
    route("POST", "/v1/disputes/:id/close", "dispute_write", (auth, req) => {
      const dispute = this.owned(auth, this.disputes, (req.params as { id: string }).id, "dispute");
      if (!["needs_response", "warning_needs_response"].includes(dispute.status)) {
        throw new StripeFailure(400, { type: "invalid_request_error", message: `This dispute is already closed or under review (status: ${dispute.status}).` });
      }
      dispute.status = "lost";
      const closed = this.event(dispute, "charge.dispute.closed", dispute);
      setImmediate(() => void this.deliverAll([closed]));
      return shown(dispute);
    });
    route("GET", "/v1/events/:id", "event_read", (auth, req) => this.retrieve(auth, req, this.events, "event"));
    // the test's controls over HTTP (any key of the account)
    route("POST", "/test-control/payments", "charge_read", (auth, req) => {
      const p = this.peer.allow(req, ["amount", "currency", "status"]);
      const made = this.createPayment({ account: auth.account.id, livemode: auth.livemode }, {
        amount: Number(p.amount), ...(typeof p.currency === "string" ? { currency: p.currency } : {}),
        ...(typeof p.status === "string" ? { status: p.status } : {}),
      });
      return { payment_intent: shown(made.paymentIntent), charge: shown(made.charge) };
    });
    // (the events go out after the answer, as Stripe's do)
    route("POST", "/test-control/charges/:id/dashboard_refund", "charge_read", (auth, req) => {
      const p = this.peer.allow(req, ["amount", "reason"]);
      const charge = this.owned(auth, this.charges, (req.params as { id: string }).id, "charge");
      const made = this.makeRefund(charge.id, { ...(p.amount ? { amount: Number(p.amount) } : {}), ...(typeof p.reason === "string" ? { reason: p.reason } : {}) });
      setImmediate(() => void this.deliverAll(made.events));
      return shown(made.refund);
    });
    route("POST", "/test-control/charges/:id/dispute", "charge_read", (auth, req) => {
      const p = this.peer.allow(req, ["reason"]);
      const charge = this.owned(auth, this.charges, (req.params as { id: string }).id, "charge");
      const made = this.makeDispute(charge.id, typeof p.reason === "string" ? { reason: p.reason } : {});
      setImmediate(() => void this.deliverAll(made.events));
      return shown(made.dispute);
    });
    route("POST", "/test-control/disputes/:id/status", "charge_read", (auth, req) => {
      const p = this.peer.allow(req, ["status"]);
      const dispute = this.owned(auth, this.disputes, (req.params as { id: string }).id, "dispute");
      if (p.status !== "under_review" && p.status !== "won" && p.status !== "lost") throw new StripeFailure(400, { type: "invalid_request_error", param: "status", message: "Invalid status" });
      const made = this.moveDispute(dispute.id, p.status);
      setImmediate(() => void this.deliverAll(made.events));
      return shown(made.dispute);
    });
  }

  private event(owner: Owned, type: string, object: Owned): PeerEvent {
    const event: PeerEvent = {
      account: owner.account, livemode: owner.livemode, id: rid("evt"), object: "event", type, created: nowS(),
      data: { object: JSON.parse(JSON.stringify(shown(object))) as unknown },
    };
    this.events.set(event.id, event);
    return event;
  }

  private mustGet<T>(map: Map<string, T>, id: string): T {
    const found = map.get(id);
    if (!found) throw new Error(`stand-in: no ${id}`);
    return found;
  }

  private owned<T extends Stored>(auth: Authed, map: Map<string, T>, id: string, noun: string): T {
    const found = map.get(id);
    if (!found || found.account !== auth.account.id || found.livemode !== auth.livemode) {
      throw new StripeFailure(404, { type: "invalid_request_error", code: "resource_missing", param: "id", message: `No such ${noun}: '${id}'` });
    }
    return found;
  }

  private retrieve<T extends Stored>(auth: Authed, req: FastifyRequest, map: Map<string, T>, noun: string) {
    return shown(this.owned(auth, map, (req.params as { id: string }).id, noun));
  }

  /** A list as Stripe answers it (the query's parameters are checked against Stripe's before the handler runs). */
  private list<T extends Stored>(auth: Authed, req: FastifyRequest, map: Map<string, T>, url: string) {
    const p = this.peer.params(req);
    const limit = p.limit === undefined ? 10 : Number(p.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new StripeFailure(400, {
      type: "invalid_request_error", param: "limit", message: "Invalid integer: limit must be between 1 and 100",
    });
    const created = (p.created ?? {}) as Record<string, string>;
    let items = [...map.values()]
      .filter((o) => o.account === auth.account.id && o.livemode === auth.livemode)
      .filter((o) => (created.gte === undefined || o.created >= Number(created.gte)) && (created.lte === undefined || o.created <= Number(created.lte)))
      .filter((o) => (typeof p.charge === "string" ? "charge" in o && o.charge === p.charge : true))
      .filter((o) => (typeof p.payment_intent === "string" ? "payment_intent" in o && o.payment_intent === p.payment_intent : true));
    // newest first, ties in insertion order reversed (Stripe's order)
    items = items.reverse().sort((a, b) => b.created - a.created);
    if (typeof p.starting_after === "string") items = items.slice(items.findIndex((o) => o.id === p.starting_after) + 1);
    if (typeof p.ending_before === "string") items = items.slice(0, Math.max(0, items.findIndex((o) => o.id === p.ending_before)));
    return { object: "list", url, has_more: items.length > limit, data: items.slice(0, limit).map(shown) };
  }
}
