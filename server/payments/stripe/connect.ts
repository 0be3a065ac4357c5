// An organization's Stripe account: connecting checks the keys against Stripe, registers till's webhook endpoint on
// the account and keeps the keys and the endpoint's signing secret sealed; a sandbox organization takes test-mode
// keys only, a live one live keys only. Events Stripe sends to the endpoint are verified with the stored secret and
// recorded once per Stripe event id (webhook.ts). What a connection changes in till (the organization's status) is
// billing's, run in the transaction that stores it (billing/processor-connections).
import { createHash } from "node:crypto";
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { seal, unseal } from "../../seal.js";
import type { StripeConnectionWire } from "../../../shared/stripe.js";
import type { AccountIssue, ConnectResult } from "../accounts.js";
import { keyHint, publishableKeyMode, secretKeyMode, STRIPE_EVENT_TYPES, Stripe, stripeClient, type StripeKeyMode } from "./client.js";
import * as repo from "./repository.js";

/** What connecting needs besides the database. */
export interface StripeAccountContext {
  /** The server secret the keys are sealed with. */
  secret: string;
  stripeApiUrl: string;
  /** till's public URL: where Stripe sends the organization's events. */
  baseURL: string;
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


export const NOT_CONNECTED = "Stripe is not connected to this organization: till stripe connect";

/** Fields of the connect body whose value an error never echoes. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set(["secret_key", "webhook_secret"]);

/** Where Stripe sends the organization's events. */
export const webhookUrl = (baseURL: string, organizationId: string) => `${baseURL}/api/stripe/webhook/${organizationId}`;

function stripeMessage(err: unknown): string {
  return err instanceof Stripe.errors.StripeError ? err.message : "Stripe could not be reached.";
}

/** The mode a sandbox or live organization's keys must have, and the sentence that explains it. */
function expectedMode(sandbox: boolean): { mode: StripeKeyMode; why: string } {
  return sandbox
    ? { mode: "test", why: "This is a sandbox organization: it takes Stripe's test-mode keys (sk_test_ or rk_test_, and pk_test_); live keys belong to the live organization." }
    : { mode: "live", why: "This is a live organization: it takes Stripe's live keys (sk_live_ or rk_live_, and pk_live_); test-mode keys belong to its sandbox (till sandbox on)." };
}

function checkKeys(input: StripeConnectInput, expected: { mode: StripeKeyMode; why: string }): AccountIssue[] {
  const issues: AccountIssue[] = [];
  const secretMode = secretKeyMode(input.secret_key);
  const publishableMode = publishableKeyMode(input.publishable_key);
  // the key itself is never echoed back in an error
  if (!secretMode) issues.push({ field: "secret_key", message: "Input should be a Stripe secret key (sk_…) or restricted key (rk_…)", input: keyHint(input.secret_key) });
  else if (secretMode !== expected.mode) issues.push({ field: "secret_key", message: expected.why, input: keyHint(input.secret_key) });
  if (!publishableMode) issues.push({ field: "publishable_key", message: "Input should be a Stripe publishable key (pk_…)", input: input.publishable_key });
  else if (publishableMode !== expected.mode) issues.push({ field: "publishable_key", message: expected.why, input: input.publishable_key });
  return issues;
}

/** The key works (Balance: read is the least a restricted key needs), and is of the mode it says; else why not. */
async function keyRefusal(stripe: Stripe, input: StripeConnectInput, expected: { mode: StripeKeyMode; why: string }): Promise<AccountIssue | null> {
  let livemode: boolean;
  try {
    livemode = (await stripe.balance.retrieve()).livemode;
  } catch (err) {
    return { field: "secret_key", message: `Stripe refused this key: ${stripeMessage(err)}`, input: keyHint(input.secret_key) };
  }
  return livemode === (expected.mode === "live") ? null : { field: "secret_key", message: expected.why, input: keyHint(input.secret_key) };
}

/** A stable idempotency key for the endpoint made for these keys: a retried connect gets the same endpoint back. */
const endpointIdempotencyKey = (organizationId: string, secretKey: string) =>
  `till-connect-${organizationId}-${createHash("sha256").update(secretKey).digest("hex").slice(0, 24)}`;

type Endpoint = { ok: true; id: string | null; signingSecret: string } | Exclude<ConnectResult, { ok: true }>;

/**
 * till's endpoint on the account (none when the events come through `stripe listen`, whose signing secret is given).
 */
async function endpointFor(stripe: Stripe, url: string, organizationId: string, input: StripeConnectInput): Promise<Endpoint> {
  if (input.webhook_secret) return { ok: true, id: null, signingSecret: input.webhook_secret };
  let endpoint: Stripe.WebhookEndpoint;
  try {
    endpoint = await stripe.webhookEndpoints.create(
      { url, enabled_events: [...STRIPE_EVENT_TYPES], description: "till", metadata: { till_organization_id: organizationId } },
      { idempotencyKey: endpointIdempotencyKey(organizationId, input.secret_key) },
    );
  } catch (err) {
    const message =
      `Stripe would not register ${url} for its events: ${stripeMessage(err)} Set TILL_BASE_URL to till's public https URL, ` +
      `or forward the events with Stripe's CLI (stripe listen --forward-to ${url}) and give its signing secret as webhook_secret.`;
    return { ok: false, issues: [{ field: "webhook_secret", message, input: null }] };
  }
  if (!endpoint.secret) return { ok: false, badGateway: "Stripe answered the new webhook endpoint without its signing secret." };
  return { ok: true, id: endpoint.id, signingSecret: endpoint.secret };
}

/**
 * Connects the account of the keys in `body` (parsed with StripeConnectInput), running `stored` in the transaction
 * that keeps them; the endpoint of the keys this connection replaces goes (best effort: the old key may be revoked
 * already).
 */
export async function connectStripe(ctx: StripeAccountContext, db: Db, organizationId: string, body: unknown, sandbox: boolean, stored: (tx: Queryable) => Promise<unknown>): Promise<ConnectResult> {
  const input = StripeConnectInput.parse(body);
  const expected = expectedMode(sandbox);
  const issues = checkKeys(input, expected);
  if (issues.length > 0) return { ok: false, issues };
  const stripe = stripeClient(input.secret_key, ctx.stripeApiUrl);
  const refusal = await keyRefusal(stripe, input, expected);
  if (refusal) return { ok: false, issues: [refusal] };
  // the account's id, when the key may read it (a restricted key without Account: read may not)
  const accountId = await stripe.accounts.retrieveCurrent().then(
    (account) => account.id,
    () => null,
  );
  const url = webhookUrl(ctx.baseURL, organizationId);
  const endpoint = await endpointFor(stripe, url, organizationId, input);
  if (!endpoint.ok) return endpoint;
  const previous = await repo.getConnection(db, organizationId);
  const row = {
    organizationId,
    accountId,
    livemode: expected.mode === "live",
    secretKey: seal(ctx.secret, "stripe", input.secret_key),
    publishableKey: input.publishable_key,
    webhookEndpointId: endpoint.id,
    webhookUrl: url,
    webhookSecret: seal(ctx.secret, "stripe", endpoint.signingSecret),
  };
  await db.transaction(async (tx) => {
    await repo.putConnection(tx, row);
    await stored(tx);
  });
  if (previous?.webhookEndpointId && previous.webhookEndpointId !== endpoint.id) await removeEndpoint(ctx, previous);
  return { ok: true };
}

/** The connection as the seller sees it; null while there is none. */
export async function stripeStatus(ctx: StripeAccountContext, db: Queryable, organizationId: string): Promise<StripeConnectionWire | null> {
  const [row, event] = await Promise.all([repo.getConnection(db, organizationId), repo.lastEvent(db, organizationId)]);
  if (!row) return null;
  const key = unseal(ctx.secret, "stripe", row.secretKey);
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

/**
 * Removes till's endpoint from the account and forgets the keys, running `removed` in the same transaction; answers
 * whether Stripe removed the endpoint, null when there was no connection.
 */
export async function disconnectStripe(ctx: StripeAccountContext, db: Db, organizationId: string, removed: (tx: Queryable) => Promise<unknown>): Promise<{ endpoint_removed: boolean } | null> {
  const row = await repo.getConnection(db, organizationId);
  if (!row) return null;
  const endpointRemoved = row.webhookEndpointId ? await removeEndpoint(ctx, row) : false;
  await db.transaction(async (tx) => {
    await repo.deleteConnection(tx, organizationId);
    await removed(tx);
  });
  return { endpoint_removed: endpointRemoved };
}

async function removeEndpoint(ctx: StripeAccountContext, row: repo.StripeConnectionRow): Promise<boolean> {
  const key = unseal(ctx.secret, "stripe", row.secretKey);
  if (!key || !row.webhookEndpointId) return false;
  try {
    await stripeClient(key, ctx.stripeApiUrl).webhookEndpoints.del(row.webhookEndpointId);
    return true;
  } catch (err) {
    // already gone on Stripe's side counts as removed
    return err instanceof Stripe.errors.StripeError && err.code === "resource_missing";
  }
}
