// POST /api/auth/polar/webhooks: webhooks from a Polar-compatible billing provider (the product spec's "Payment
// webhook events"), verified the Standard Webhooks way (the spec's 300 s tolerance and its messages). A `webhook-id`
// seen before is acknowledged again without being handled twice. Mounted only when TILL_POLAR_WEBHOOK_SECRET is set.
import type { FastifyInstance } from "fastify";
import type { Db } from "../../db/client.js";
import { AUTH_BASE_PATH } from "../../../shared/auth-mount.js";
import * as repo from "./repository.js";
import { verifyWebhook } from "./signing.js";

export const INBOUND_PATH = `${AUTH_BASE_PATH}/polar/webhooks`;
/** Ids are kept this long: a provider retrying for days must still find its message already handled. */
const SEEN_RETENTION_MS = 7 * 24 * 3600 * 1000;
const PRUNE_EVERY_MS = 60_000;

/** better-auth's error body: the code is the message upper-cased with underscores (the product spec's errors). */
const errorBody = (message: string) => ({ message, code: message.toUpperCase().replace(/[^A-Z0-9]+/g, "_") });

function eventType(body: Buffer): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString("utf8"));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
      const type = (parsed as { type?: unknown }).type;
      return typeof type === "string" ? type.replaceAll("\u0000", "").slice(0, 100) : undefined;
    }
  } catch {
    // not JSON
  }
  return undefined;
}

export function inboundWebhooksPlugin(deps: { db: Db; secret: string }) {
  let lastPrune = 0;
  return async function inboundWebhooks(app: FastifyInstance): Promise<void> {
    // the signature covers the exact bytes received
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));

    app.post(INBOUND_PATH, async (req, reply) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const verified = verifyWebhook(deps.secret, req.headers, body);
      if (!verified.ok) return reply.status(verified.error.status).send(errorBody(verified.error.message));
      const type = eventType(body);
      if (type === undefined) return reply.status(400).send(errorBody("Invalid webhook payload"));
      const fresh = await repo.rememberInbound(deps.db, {
        webhookId: verified.id.slice(0, 255),
        timestamp: new Date(verified.timestamp * 1000),
        type,
      });
      if (fresh && Date.now() - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = Date.now();
        await repo.forgetInboundBefore(deps.db, new Date(Date.now() - SEEN_RETENTION_MS));
      }
      // what till does with each event is not specified (by the product spec); it is acknowledged and its id kept
      return reply.status(200).send({ received: true });
    });
  };
}
