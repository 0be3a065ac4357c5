// The set-up the Idempotency-Key tests share (idempotency*.test.ts): two server instances on one fresh
// database (on PostgreSQL each with its own pool, as two replicas), the seller and another organization, and
// requests sent with or without a key.
import { afterAll, beforeAll } from "vitest";
import { openDatabase, type Database } from "../../server/db/client.js";
import { freshDatabase } from "../helpers/db.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

export interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> | null;
}

type SendOptions = { token?: string; key?: string; body?: unknown };

export async function send(base: string, method: string, path: string, opts: SendOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.key !== undefined) headers["idempotency-key"] = opts.key;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

export const productBody = (name: string) => ({ name, prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }] });

/** Starts both instances in beforeAll (closed in afterAll); the fields are there once it has run. */
export function idempotencyFixture() {
  const fx = {} as { server: TestServer; second: TestServer; seller: Seller; other: Seller };
  let shared: Database & { url: string | undefined };
  let secondHandle: Database | undefined;
  const db = () => fx.server.database.db;
  /** A /v1 request as the seller (on the first instance unless `base` says). */
  const v1 = (method: string, path: string, opts: SendOptions = {}, base = fx.server.url) => send(base, method, path, { token: fx.seller.token, ...opts });
  async function productsNamed(name: string, s: Seller = fx.seller): Promise<number> {
    const res = await send(fx.server.url, "GET", `/v1/products/?query=${encodeURIComponent(name)}&limit=100`, { token: s.token });
    return (res.body?.items as Array<{ name: string }>).filter((p) => p.name === name).length;
  }

  beforeAll(async () => {
    shared = await freshDatabase();
    fx.server = await startServer({}, { database: shared });
    secondHandle = shared.url ? await openDatabase({ url: shared.url, max: 5 }) : undefined;
    fx.second = await startServer({}, { database: secondHandle ?? shared });
    fx.seller = await createSeller(fx.server, "idem");
    fx.other = await createSeller(fx.server, "idem-other");
  });
  afterAll(async () => {
    await fx.second?.close();
    await fx.server?.close();
    await secondHandle?.close();
    await shared?.close();
  });
  return Object.assign(fx, { db, v1, productsNamed });
}
