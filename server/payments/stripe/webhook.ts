// POST /api/stripe/webhook/{organization_id}: the events of an organization's Stripe account, verified with
// `stripe.webhooks.constructEvent` on the exact bytes received and the organization's stored signing secret
// (a bad or missing signature is a 400 and changes nothing), and recorded once per Stripe event id, so a
// redelivery is acknowledged without being taken twice. The event and the outbox row that has the worker
// process it are written in one transaction (billing/processor-events does what each event changes in till).
import type { FastifyInstance } from "fastify";
import type { Db } from "../../db/client.js";
import { enqueue } from "../../db/outbox.js";
import { unseal } from "../../seal.js";
import { isUuid } from "../../../shared/uuid.js";
import { PROCESSOR_EVENT_OUTBOX_TYPE } from "../accounts.js";
import { Stripe } from "./client.js";
import * as repo from "./repository.js";

export interface StripeWebhookDeps {
  db: Db;
  /** The server secret the signing secrets are sealed with. */
  secret: string;
}

/** The organization's signing secret and mode, for verifying an incoming event; null when not connected. */
async function webhookSecretOf(deps: StripeWebhookDeps, organizationId: string): Promise<{ secret: string; livemode: boolean } | null> {
  const row = await repo.getConnection(deps.db, organizationId);
  const secret = row ? unseal(deps.secret, "stripe", row.webhookSecret) : null;
  return row && secret ? { secret, livemode: row.livemode } : null;
}

/** What the inbound endpoint verified: Stripe's event as sent. */
interface VerifiedStripeEvent {
  id: string;
  type: string;
  livemode: boolean;
  created: number;
  data?: { object?: object };
}

/**
 * Records a verified event once, with the outbox row that has the worker process it (billing/processor-events), in
 * one transaction: an event is acknowledged to Stripe only once both exist, so a crash loses nothing, and a
 * redelivery (same Stripe event id) records nothing. Answers false when its id was seen before.
 */
async function recordEvent(deps: StripeWebhookDeps, organizationId: string, event: VerifiedStripeEvent): Promise<boolean> {
  const object = event.data?.object;
  const objectId = object && "id" in object ? object.id : null;
  return deps.db.transaction(async (tx) => {
    const fresh = await repo.rememberEvent(tx, {
      organizationId,
      id: event.id.slice(0, 255),
      type: event.type.slice(0, 255),
      livemode: event.livemode,
      stripeCreatedAt: new Date(event.created * 1000),
      objectId: typeof objectId === "string" ? objectId.slice(0, 255) : null,
      payload: JSON.parse(JSON.stringify(event)) as Record<string, unknown>,
    });
    if (fresh) await enqueue(tx, { type: PROCESSOR_EVENT_OUTBOX_TYPE, organizationId, data: { id: event.id.slice(0, 255), type: event.type.slice(0, 255) } });
    return fresh;
  });
}

export const STRIPE_WEBHOOK_PATH = "/api/stripe/webhook/:organizationId";
/** Stripe's own tolerance for a signature's timestamp. */
const TOLERANCE_SECONDS = 300;
/** Stripe's events are a few KiB; this bounds what one request may make the server read. */
const BODY_LIMIT = 512 * 1024;

const error = (detail: string) => ({ error: "BadRequest", detail });

export function stripeWebhookPlugin(deps: StripeWebhookDeps) {
  return async function stripeWebhook(app: FastifyInstance): Promise<void> {
    // the signature covers the exact bytes received
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body));

    app.post(STRIPE_WEBHOOK_PATH, async (req, reply) => {
      const { organizationId } = req.params as { organizationId: string };
      const connection = isUuid(organizationId) ? await webhookSecretOf(deps, organizationId.toLowerCase()) : null;
      if (!connection) return reply.status(404).send({ error: "ResourceNotFound", detail: "No Stripe account is connected here." });
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const signature = req.headers["stripe-signature"];
      if (typeof signature !== "string" || signature.length === 0 || signature.length > 4096) {
        return reply.status(400).send(error("Missing Stripe-Signature header."));
      }
      let event: VerifiedStripeEvent;
      try {
        event = Stripe.webhooks.constructEvent(body, signature, connection.secret, TOLERANCE_SECONDS);
      } catch {
        return reply.status(400).send(error("The Stripe-Signature does not match this organization's signing secret."));
      }
      if (typeof event.id !== "string" || typeof event.type !== "string" || typeof event.created !== "number") {
        return reply.status(400).send(error("Not a Stripe event."));
      }
      if (event.livemode !== connection.livemode) {
        return reply.status(400).send(error(`A ${event.livemode ? "live" : "test-mode"} event for a ${connection.livemode ? "live" : "test-mode"} connection.`));
      }
      const fresh = await recordEvent(deps, organizationId.toLowerCase(), event);
      return reply.status(200).send({ received: true, duplicate: !fresh });
    });
  };
}
