// Faults of the Stripe stand-in a test turns on (never shipped), as Stripe's API has them
// (https://docs.stripe.com/rate-limits, https://docs.stripe.com/error-low-level, https://docs.stripe.com/api/errors):
//  - a 429 (Stripe's rate limiter: "Too many requests hit the API too quickly"), with or without the
//    `Stripe-Should-Retry` header the official clients obey (true: retried, false: not);
//  - a 500 `api_error` (a problem on Stripe's side), answered before the request is processed;
//  - a connection dropped AFTER the request was processed: the charge made, the Idempotency-Key's answer stored,
//    the socket closed without an answer — what a timeout or a network cut looks like to the caller, who cannot
//    tell whether the money was taken. A retry with the same key gets the stored answer (Stripe's idempotency).
// Each fault answers the next `times` requests matching a method and a path (`:name` matches one path segment).
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { StripePeer } from "./stripe-peer.js";

type Method = "GET" | "POST" | "DELETE";
export type FaultKind = "rate_limit" | "api_error" | "drop_after_processing";

interface Rule {
  method: Method;
  pattern: RegExp;
  remaining: number;
  kind: FaultKind;
  shouldRetry: boolean | undefined;
  /** Only requests whose metadata has these values (one customer's charges among a sandbox's renewals). */
  metadata?: Record<string, string> | undefined;
}

/** Stripe's answer when an account's requests exceed its rate limit (https://docs.stripe.com/rate-limits). */
export const RATE_LIMIT_ERROR = {
  type: "invalid_request_error",
  code: "rate_limit",
  message: "Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.",
  doc_url: "https://stripe.com/docs/error-codes/rate-limit",
} as const;

/** Stripe's answer to a request it failed on its side (type `api_error`). */
export const API_ERROR = {
  type: "api_error",
  message: "Sorry, something went wrong. We've already been notified of the problem, but if you need any help, you can reach us at https://support.stripe.com/contact.",
} as const;

const patternOf = (path: string) => new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z_]+/g, "[^/]+")}$`);
const pathOf = (req: FastifyRequest) => req.url.split("?")[0] ?? "";

function metadataMatches(req: FastifyRequest, wanted: Record<string, string> | undefined): boolean {
  if (!wanted) return true;
  const body = req.body as { metadata?: Record<string, unknown> } | undefined;
  return Object.entries(wanted).every(([k, v]) => body?.metadata?.[k] === v);
}

export class PeerFaults {
  private readonly rules: Rule[] = [];
  /** Every fault injected, in order: which request met it and with which Idempotency-Key. */
  readonly injected: Array<{ kind: FaultKind; method: string; path: string; idempotencyKey: string | undefined }> = [];

  /** Installs itself on the stand-in; made before `peer.start()`. */
  constructor(peer: StripePeer) {
    peer.extensions.push((_route, app) => this.install(app));
  }

  /** The next `times` requests answer 429; `shouldRetry` sets the `Stripe-Should-Retry` header (undefined: none). */
  rateLimit(method: Method, path: string, opts: { times?: number; shouldRetry?: boolean } = {}): void {
    this.rules.push({ method, pattern: patternOf(path), remaining: opts.times ?? 1, kind: "rate_limit", shouldRetry: opts.shouldRetry });
  }

  /** The next `times` requests answer 500 `api_error` without being processed. */
  serverError(method: Method, path: string, opts: { times?: number; shouldRetry?: boolean } = {}): void {
    this.rules.push({ method, pattern: patternOf(path), remaining: opts.times ?? 1, kind: "api_error", shouldRetry: opts.shouldRetry });
  }

  /**
   * The next `times` requests (with `metadata`: those whose metadata has its values) are processed (and their
   * idempotent answer stored), then their connection is closed unanswered.
   */
  dropAfterProcessing(method: Method, path: string, opts: { times?: number; metadata?: Record<string, string> } = {}): void {
    this.rules.push({ method, pattern: patternOf(path), remaining: opts.times ?? 1, kind: "drop_after_processing", shouldRetry: undefined, metadata: opts.metadata });
  }

  /** Faults still armed (a test checks that its fault was met). */
  pending(): number {
    return this.rules.reduce((n, r) => n + r.remaining, 0);
  }

  clear(): void {
    this.rules.length = 0;
  }

  private take(req: FastifyRequest, kinds: FaultKind[]): Rule | undefined {
    const path = pathOf(req);
    const rule = this.rules.find((r) => r.remaining > 0 && kinds.includes(r.kind) && r.method === req.method && r.pattern.test(path) && metadataMatches(req, r.metadata));
    if (!rule) return undefined;
    rule.remaining -= 1;
    const key = req.headers["idempotency-key"];
    this.injected.push({ kind: rule.kind, method: req.method, path, idempotencyKey: typeof key === "string" ? key : undefined });
    return rule;
  }

  private install(app: FastifyInstance): void {
    // before the route runs: nothing is processed (no object made, no idempotent answer kept)
    app.addHook("onRequest", async (req, reply) => {
      const rule = this.take(req, ["rate_limit", "api_error"]);
      if (!rule) return;
      if (rule.shouldRetry !== undefined) void reply.header("stripe-should-retry", String(rule.shouldRetry));
      if (rule.kind === "rate_limit") return reply.status(429).send({ error: RATE_LIMIT_ERROR });
      return reply.status(500).send({ error: API_ERROR });
    });
    // after the route ran and its answer was made (kept for the Idempotency-Key): the answer never leaves
    app.addHook("onSend", async (req, reply, payload) => {
      if (!this.take(req, ["drop_after_processing"])) return payload;
      reply.raw.destroy();
      return payload;
    });
  }
}
