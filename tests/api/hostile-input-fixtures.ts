// The set-up the hostile-input tests share (hostile-input*.test.ts): a server of the file's own, a seller with an
// API key and a fixed-price product, JSON text sent exactly as given, and the health check after each attack.
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, expect } from "vitest";
import { createProduct } from "../helpers/checkout.js";
import type { Client } from "../helpers/client.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function hostileInputFixture() {
  const fx = {} as { server: TestServer; seller: Seller; key: string; fixed: Product };
  const db = () => fx.server.database.db;

  /** Sends `body` as JSON text exactly as given. */
  async function send(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; json: Record<string, unknown> }> {
    const res = await fetch(`${fx.server.url}${path}`, {
      method,
      headers: { origin: fx.server.url, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body,
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      // not JSON
    }
    return { status: res.status, text, json };
  }

  const cookieOf = (client: Client) => ({ cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ") });

  const healthy = async () => expect((await fetch(`${fx.server.url}/healthz`)).status).toBe(200);

  beforeAll(async () => {
    fx.server = await startServer();
    fx.seller = await createSeller(fx.server, "hostile");
    fx.key = await fx.seller.createKey();
    fx.fixed = await createProduct(fx.seller, "fixed");
  });
  afterAll(async () => {
    await fx.server?.close();
  });

  return Object.assign(fx, { db, send, cookieOf, healthy });
}
