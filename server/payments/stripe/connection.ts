// The Stripe processor of an organization: its connection's keys (unsealed with the server secret) made into a
// `stripe` client and the adapter, cached per sealed key so a confirm pays one indexed read, not a new client.
import { eq, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Queryable } from "../../db/client.js";
import { preparedPerHandle } from "../../db/prepared.js";
import { qualified } from "../../db/qualified.js";
import { stripeConnection } from "../../db/schema/index.js";
import { unseal } from "../../seal.js";
import type { PaymentProcessor, ProcessorConnection } from "../processor.js";
import { stripeClient, type Stripe } from "./client.js";
import { createStripeProcessor } from "./adapter.js";

export interface StripeContext {
  /** The server secret the keys are sealed with. */
  secret: string;
  stripeApiUrl: string;
}

/** Sealed key → its client and adapter; bounded (the oldest goes first). */
const cache = new Map<string, { stripe: Stripe; processor: PaymentProcessor }>();
const CACHE_SIZE = 256;

export interface StripeOfOrganization {
  stripe: Stripe;
  processor: PaymentProcessor;
  livemode: boolean;
}

// prepared: every confirm and checkout reads it (most often to find no row: the test processor's organizations)
const connectionOf = preparedPerHandle((db) =>
  db
    .select({ secretKey: stripeConnection.secretKey, publishableKey: stripeConnection.publishableKey, livemode: stripeConnection.livemode })
    .from(stripeConnection)
    .where(eq(stripeConnection.organizationId, sql.placeholder("organizationId")))
    .limit(1)
    .prepare("stripe_connection_of"),
);

/**
 * The organization's connection (null: none) as a column of a statement that reads one of its rows
 * (`stripeOfConnection` makes it a processor): a confirm learns whether Stripe takes its payment in the statement that
 * finds the checkout.
 */
export const connectionSql = (organizationIdColumn: AnyPgColumn): SQL<ProcessorConnection | null> =>
  sql<ProcessorConnection | null>`(select json_build_object('secretKey', ${stripeConnection.secretKey},
    'publishableKey', ${stripeConnection.publishableKey}, 'livemode', ${stripeConnection.livemode})::text
    from ${stripeConnection} where ${stripeConnection.organizationId} = ${qualified(organizationIdColumn)})`.mapWith((text: string) => JSON.parse(text) as ProcessorConnection);

/**
 * The organization's Stripe client and adapter; null when it has no Stripe connection (or its keys were sealed with
 * another secret).
 */
export async function stripeOf(db: Queryable, ctx: StripeContext, organizationId: string): Promise<StripeOfOrganization | null> {
  const [row] = await connectionOf(db).execute({ organizationId });
  return row ? stripeOfConnection(ctx, row) : null;
}

/** Whether the organization has a Stripe account connected (a live organization's takes live keys only: real money). */
export async function hasStripeConnection(db: Queryable, organizationId: string): Promise<boolean> {
  const [row] = await connectionOf(db).execute({ organizationId });
  return row !== undefined;
}

/** stripeOf, the connection already read. */
export function stripeOfConnection(ctx: StripeContext, row: ProcessorConnection): StripeOfOrganization | null {
  const slot = `${ctx.stripeApiUrl}\0${row.secretKey}\0${row.publishableKey}`;
  let hit = cache.get(slot);
  if (!hit) {
    const key = unseal(ctx.secret, "stripe", row.secretKey);
    if (!key) return null;
    const stripe = stripeClient(key, ctx.stripeApiUrl);
    hit = { stripe, processor: createStripeProcessor(stripe, row.publishableKey) };
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value ?? "");
    cache.set(slot, hit);
  }
  return { ...hit, livemode: row.livemode };
}
