// An organization's Stripe account: connecting checks the keys against Stripe, registers till's
// webhook endpoint on the account and keeps the keys and the endpoint's signing secret sealed; a sandbox
// organization takes test-mode keys only, a live one live keys only. Events Stripe sends to the endpoint are
// verified with the stored secret and recorded once per Stripe event id (webhook.ts).
import { createHash } from "node:crypto";
import { z } from "zod";
import type { Db } from "../../db/client.js";
import { keyHint, publishableKeyMode, secretKeyMode, STRIPE_EVENT_TYPES, Stripe, stripeClient, type StripeKeyMode } from "../../payments/stripe-client.js";
import { enqueue } from "../../db/outbox.js";
import { seal, unseal } from "../../seal.js";
import { valueIssue } from "../http.js";
import { ApiError, badGateway, notFound, validationError, type ValidationIssue } from "../errors.js";
import { liveOrganizationOf } from "../organizations/sandbox.js";
import { moveStatus, type StatusPolicy } from "../organizations/status.js";
import * as repo from "./repository.js";
import type { StripeConnectionWire, StripeStatusWire } from "../../../shared/stripe.js";

export interface StripeDeps {
  db: Db;
  /** The server secret the keys are sealed with. */
  secret: string;
  baseURL: string;
  stripeApiUrl: string;
  /** The built-in test processor takes live organizations' payments too (TILL_TEST_PAYMENTS=live). */
  testInLive?: boolean;
}

export const StripeConnectInput = z
  .object({
    secret_key: z.string().min(1).max(300),
    publishable_key: z.string().min(1).max(300),
    /** The signing secret of `stripe listen` (Stripe's CLI forwards the events): no endpoint is made on the account. */
    webhook_secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=_-]{8,250}$/, "Input should be a webhook signing secret (whsec_…)")
      .optional(),
  })
  .strict();
export type StripeConnectInput = z.output<typeof StripeConnectInput>;


const NOT_CONNECTED = "Stripe is not connected to this organization: till stripe connect";

/** Where Stripe sends the organization's events. */
export const webhookUrl = (baseURL: string, organizationId: string) => `${baseURL}/api/stripe/webhook/${organizationId}`;

function stripeMessage(err: unknown): string {
  return err instanceof Stripe.errors.StripeError ? err.message : "Stripe could not be reached.";
}

/** The mode a sandbox or live organization's keys must have, and the sentence that explains it. */
async function expectedMode(db: Db, organizationId: string): Promise<{ mode: StripeKeyMode; why: string }> {
  return (await liveOrganizationOf(db, organizationId)) !== null
    ? { mode: "test", why: "This is a sandbox organization: it takes Stripe's test-mode keys (sk_test_ or rk_test_, and pk_test_); live keys belong to the live organization." }
    : { mode: "live", why: "This is a live organization: it takes Stripe's live keys (sk_live_ or rk_live_, and pk_live_); test-mode keys belong to its sandbox (till sandbox on)." };
}

function checkKeys(input: StripeConnectInput, expected: { mode: StripeKeyMode; why: string }): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const secretMode = secretKeyMode(input.secret_key);
  const publishableMode = publishableKeyMode(input.publishable_key);
  // the key itself is never echoed back in an error
  if (!secretMode) issues.push(valueIssue(["body", "secret_key"], "Input should be a Stripe secret key (sk_…) or restricted key (rk_…)", keyHint(input.secret_key)));
  else if (secretMode !== expected.mode) issues.push(valueIssue(["body", "secret_key"], expected.why, keyHint(input.secret_key)));
  if (!publishableMode) issues.push(valueIssue(["body", "publishable_key"], "Input should be a Stripe publishable key (pk_…)", input.publishable_key));
  else if (publishableMode !== expected.mode) issues.push(valueIssue(["body", "publishable_key"], expected.why, input.publishable_key));
  return issues;
}

/** A stable idempotency key for the endpoint made for these keys: a retried connect gets the same endpoint back. */
const endpointIdempotencyKey = (organizationId: string, secretKey: string) =>
  `till-connect-${organizationId}-${createHash("sha256").update(secretKey).digest("hex").slice(0, 24)}`;

export async function connectStripe(deps: StripeDeps, organizationId: string, input: StripeConnectInput, policy: StatusPolicy): Promise<StripeConnectionWire> {
  const expected = await expectedMode(deps.db, organizationId);
  const issues = checkKeys(input, expected);
  if (issues.length > 0) throw validationError(issues);
  const stripe = stripeClient(input.secret_key, deps.stripeApiUrl);

  // the key works (Balance: read is the least a restricted key needs), and is of the mode it says
  try {
    const balance = await stripe.balance.retrieve();
    if (balance.livemode !== (expected.mode === "live")) throw validationError([valueIssue(["body", "secret_key"], expected.why, keyHint(input.secret_key))]);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw validationError([valueIssue(["body", "secret_key"], `Stripe refused this key: ${stripeMessage(err)}`, keyHint(input.secret_key))]);
  }
  // the account's id, when the key may read it (a restricted key without Account: read may not)
  const accountId = await stripe.accounts.retrieveCurrent().then(
    (account) => account.id,
    () => null,
  );

  const url = webhookUrl(deps.baseURL, organizationId);
  let endpointId: string | null = null;
  let signingSecret = input.webhook_secret ?? null;
  if (!signingSecret) {
    try {
      const endpoint = await stripe.webhookEndpoints.create(
        { url, enabled_events: [...STRIPE_EVENT_TYPES], description: "till", metadata: { till_organization_id: organizationId } },
        { idempotencyKey: endpointIdempotencyKey(organizationId, input.secret_key) },
      );
      endpointId = endpoint.id;
      signingSecret = endpoint.secret ?? null;
    } catch (err) {
      throw validationError([
        valueIssue(
          ["body", "webhook_secret"],
          `Stripe would not register ${url} for its events: ${stripeMessage(err)} Set TILL_BASE_URL to till's public https URL, ` +
            `or forward the events with Stripe's CLI (stripe listen --forward-to ${url}) and give its signing secret as webhook_secret.`,
          null,
        ),
      ]);
    }
    if (!signingSecret) throw badGateway("Stripe answered the new webhook endpoint without its signing secret.");
  }

  const previous = await repo.getConnection(deps.db, organizationId);
  const row = {
    organizationId,
    accountId,
    livemode: expected.mode === "live",
    secretKey: seal(deps.secret, "stripe", input.secret_key),
    publishableKey: input.publishable_key,
    webhookEndpointId: endpointId,
    webhookUrl: url,
    webhookSecret: seal(deps.secret, "stripe", signingSecret),
  };
  // a processor for real money moves the organization's status (onboarding_started, or active), with its event
  await deps.db.transaction(async (tx) => {
    await repo.putConnection(tx, row);
    await moveStatus(tx, organizationId, policy);
  });
  // the endpoint of the keys this connection replaces goes (best effort: the old key may be revoked already)
  if (previous?.webhookEndpointId && previous.webhookEndpointId !== endpointId) await removeEndpoint(deps, previous);
  const connected = await stripeStatus(deps, organizationId);
  if (!connected.connected) throw notFound(NOT_CONNECTED); // disconnected meanwhile
  return connected;
}

/** The connection as the seller sees it; `{ connected: false, test_processor }` while there is none. */
export async function stripeStatus(deps: StripeDeps, organizationId: string): Promise<StripeStatusWire> {
  const [row, event] = await Promise.all([repo.getConnection(deps.db, organizationId), repo.lastEvent(deps.db, organizationId)]);
  if (!row) return { connected: false, test_processor: deps.testInLive === true || (await liveOrganizationOf(deps.db, organizationId)) !== null };
  const key = unseal(deps.secret, "stripe", row.secretKey);
  return {
    connected: true,
    account_id: row.accountId,
    livemode: row.livemode,
    secret_key: key ? keyHint(key) : "(sealed with another server secret: connect again)",
    publishable_key: row.publishableKey,
    webhook_endpoint: { id: row.webhookEndpointId, url: row.webhookUrl },
    last_event: event
      ? { id: event.id, type: event.type, created_at: event.stripeCreatedAt.toISOString(), received_at: event.receivedAt.toISOString() }
      : null,
    last_error: row.lastErrorAt ? { code: row.lastErrorCode ?? "unknown", message: row.lastErrorDetail ?? "", at: row.lastErrorAt.toISOString() } : null,
    connected_at: row.createdAt.toISOString(),
  };
}

/** Removes till's endpoint from the account and forgets the keys; answers whether Stripe removed the endpoint. */
export async function disconnectStripe(deps: StripeDeps, organizationId: string, policy: StatusPolicy): Promise<{ endpoint_removed: boolean }> {
  const row = await repo.getConnection(deps.db, organizationId);
  if (!row) throw notFound(NOT_CONNECTED);
  const removed = row.webhookEndpointId ? await removeEndpoint(deps, row) : false;
  // without a processor for real money an active organization cannot take live payments: its status moves back
  await deps.db.transaction(async (tx) => {
    await repo.deleteConnection(tx, organizationId);
    await moveStatus(tx, organizationId, policy);
  });
  return { endpoint_removed: removed };
}

async function removeEndpoint(deps: StripeDeps, row: repo.StripeConnectionRow): Promise<boolean> {
  const key = unseal(deps.secret, "stripe", row.secretKey);
  if (!key || !row.webhookEndpointId) return false;
  try {
    await stripeClient(key, deps.stripeApiUrl).webhookEndpoints.del(row.webhookEndpointId);
    return true;
  } catch (err) {
    // already gone on Stripe's side counts as removed
    return err instanceof Stripe.errors.StripeError && err.code === "resource_missing";
  }
}

/** The official client on the organization's own keys; null when Stripe is not connected (or sealed with another secret). */
export async function stripeOf(deps: Pick<StripeDeps, "db" | "secret" | "stripeApiUrl">, organizationId: string): Promise<Stripe | null> {
  const row = await repo.getConnection(deps.db, organizationId);
  const key = row ? unseal(deps.secret, "stripe", row.secretKey) : null;
  return key ? stripeClient(key, deps.stripeApiUrl) : null;
}

export { NOT_CONNECTED };

/** The organization's signing secret and mode, for verifying an incoming event; null when not connected. */
export async function webhookSecretOf(deps: StripeDeps, organizationId: string): Promise<{ secret: string; livemode: boolean } | null> {
  const row = await repo.getConnection(deps.db, organizationId);
  const secret = row ? unseal(deps.secret, "stripe", row.webhookSecret) : null;
  return row && secret ? { secret, livemode: row.livemode } : null;
}

/** What the inbound endpoint verified: Stripe's event as sent. */
export interface VerifiedStripeEvent {
  id: string;
  type: string;
  livemode: boolean;
  created: number;
  data?: { object?: object };
}

/**
 * Records a verified event once, with the outbox row that has the worker process it (billing/stripe-events), in
 * one transaction: an event is acknowledged to Stripe only once both exist, so a crash loses nothing, and a
 * redelivery (same Stripe event id) records nothing. Answers false when its id was seen before.
 */
export async function recordEvent(deps: StripeDeps, organizationId: string, event: VerifiedStripeEvent): Promise<boolean> {
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
    if (fresh) await enqueue(tx, { type: "stripe.event", organizationId, data: { id: event.id.slice(0, 255), type: event.type.slice(0, 255) } });
    return fresh;
  });
}
