// The set-up the reservation tests share (reservations*.test.ts), against any till reachable over HTTP (the
// in-process test server or a server process): meters a reservation can hold (one summing `tokens`, one counting
// events), plans crediting them, subscribers to those plans, and the reservation calls.
import { Polar } from "@polar-sh/sdk";
import { inArray } from "drizzle-orm";
import { expect } from "vitest";
import type { Db } from "../../server/db/client.js";
import { event } from "../../server/db/schema/index.js";
import { rawRequest, type RawResponse } from "../helpers/api.js";
import { subscribeThroughCheckout } from "../helpers/checkout.js";
import type { TestServer } from "../helpers/server.js";

/** A seller's door into a till: its address and a token of the seller. */
export interface Api {
  url: string;
  token: string;
}

export const call = (api: Api, method: string, path: string, body?: unknown, token = api.token): Promise<RawResponse> => rawRequest(api.url, token, method, path, body);

/** A meter summing the `tokens` of `<name>` events. */
export async function sumMeter(api: Api, name: string): Promise<string> {
  const res = await call(api, "POST", "/v1/meters/", {
    name,
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: name }] },
    aggregation: { func: "sum", property: "tokens" },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** A meter counting `<name>` events. */
export async function countMeter(api: Api, name: string): Promise<string> {
  const res = await call(api, "POST", "/v1/meters/", {
    name,
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: name }] },
    aggregation: { func: "count" },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

export interface PlanOptions {
  /** Units the plan credits on the meter each period (none when null). */
  credits: number | null;
  /** A metered price on the meter, with this overage (none when null). */
  overage: "credit_only" | "credit_then_invoice" | null;
  /** Cents per unit of the metered price. */
  unitAmount?: string;
}

/** A monthly plan of 9.00 crediting, or billing, the meter as `options` say; its id. */
export async function plan(api: Api, name: string, meterId: string, options: PlanOptions): Promise<string> {
  const prices: Array<Record<string, unknown>> = [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }];
  if (options.overage) {
    prices.push({ amount_type: "metered_unit", meter_id: meterId, unit_amount: options.unitAmount ?? "10", price_currency: "usd", overage: options.overage });
  }
  const product = await call(api, "POST", "/v1/products/", { name, recurring_interval: "month", prices });
  expect(product.status).toBe(201);
  if (options.credits !== null) {
    const benefit = await call(api, "POST", "/v1/benefits/", {
      type: "meter_credit",
      description: `${name} credits`,
      properties: { units: options.credits, rollover: false, meter_id: meterId },
    });
    expect(benefit.status).toBe(201);
    const set = await call(api, "POST", `/v1/products/${product.body.id}/benefits`, { benefits: [benefit.body.id] });
    expect(set.status).toBe(200);
  }
  return product.body.id as string;
}

/** A new customer subscribed to the plan through a paid checkout. */
export async function subscriber(api: Api, productId: string): Promise<{ subscriptionId: string; customerId: string }> {
  const sdk = new Polar({ accessToken: api.token, serverURL: api.url });
  const sub = await subscribeThroughCheckout({ url: api.url } as TestServer, sdk, productId);
  return { subscriptionId: sub.id, customerId: sub.customerId };
}

export interface ReservationBody {
  id: string;
  status: "held" | "committed" | "released" | "expired";
  customer_id: string;
  meter_id: string;
  units: number;
  used_units: number | null;
  expires_at: string;
}

export const reserve = (api: Api, customerId: string, feature: string, units: number, extra: Record<string, unknown> = {}, token = api.token) =>
  call(api, "POST", "/v1/reservations/", { customer_id: customerId, feature, units, ...extra }, token);

export const commit = (api: Api, id: string, units: number, token = api.token) => call(api, "POST", `/v1/reservations/${id}/commit`, { units }, token);

export const release = (api: Api, id: string, token = api.token) => call(api, "POST", `/v1/reservations/${id}/release`, undefined, token);

/** The meter's check for the customer: balance, limit, held. */
export async function balanceOf(api: Api, customerId: string, feature: string): Promise<{ balance: number; limit: number | null; held: number; allowed: boolean }> {
  const res = await call(api, "POST", "/v1/entitlements/check", { customer_id: customerId, feature });
  expect(res.status).toBe(200);
  return res.body as { balance: number; limit: number | null; held: number; allowed: boolean };
}

/** An event as GET /v1/events shows it (Polar's shape: no external id). */
export interface EventBody {
  id: string;
  name: string;
  metadata: Record<string, unknown>;
}

/** The customer's events (GET /v1/events, up to 100). */
export async function eventsOf(api: Api, customerId: string): Promise<EventBody[]> {
  const res = await call(api, "GET", `/v1/events/?customer_id=${customerId}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.items as EventBody[];
}

/** The external ids the events of these ids were stored with (the wire does not show them). */
export async function externalIdsOf(db: Db, events: EventBody[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = await db.select({ externalId: event.externalId }).from(event).where(inArray(event.id, events.map((e) => e.id)));
  return rows.map((r) => r.externalId ?? "").sort();
}
