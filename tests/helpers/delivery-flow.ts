// The steps the benefit delivery API tests share: read a benefit's grants, buy a product, connect a
// customer's account through the portal's authorize URL and the peer's redirects, and wait for the jobs worker.
// The server and seller are read lazily (tests set them in beforeAll).
import type { SQL } from "drizzle-orm";
import { expect } from "vitest";
import { rawRequest } from "./api.js";
import { createProduct, pay } from "./checkout.js";
import type { Seller } from "./seller.js";
import type { TestServer } from "./server.js";

export type Grant = {
  id: string;
  customer_id: string;
  is_granted: boolean;
  granted_at: string | null;
  is_revoked: boolean;
  error: { message: string; type: string; timestamp: string } | null;
  properties: Record<string, unknown>;
  previous_properties: Record<string, unknown> | null;
};

/** The rows of a raw query on the server's database (postgres.js answers an array, PGlite `{ rows }`). */
export async function rowsOf<T>(server: TestServer, query: SQL): Promise<T[]> {
  const result: unknown = await server.database.db.execute(query);
  return Array.isArray(result) ? (result as T[]) : (result as { rows: T[] }).rows;
}

export function deliveryFlow(serverOf: () => TestServer, sellerOf: () => Seller) {
  const api = async (method: string, path: string, body?: unknown) => rawRequest(serverOf().url, sellerOf().token, method, path, body);

  /**
   * Polls `fn` (waking the worker) until it answers something truthy. The bound is for a hang: 15 s ran out once
   * in CI at a load of 10 on 2 CPUs (a Discord grant that came on the retry), and 30 s once for a revoke whose
   * first attempt failed in passing there: the delivery's first retry comes 30 s later (RETRY_DELAYS_MS), so the
   * bound lets it come.
   */
  async function until<T>(what: string, fn: () => Promise<T | undefined | false | null>, timeoutMs = 45_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await fn();
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      serverOf().worker.wake();
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function grantsOf(benefitId: string): Promise<Grant[]> {
    const res = await api("GET", `/v1/benefits/${benefitId}/grants?limit=100`);
    return (res.body as { items: Grant[] }).items;
  }

  async function grantOf(benefitId: string, customerId: string): Promise<Grant | undefined> {
    return (await grantsOf(benefitId)).find((g) => g.customer_id === customerId);
  }

  /** Buys `productId` as `email` (the same email is the same customer); returns the customer id. */
  async function buy(productId: string, email: string): Promise<{ customerId: string }> {
    const checkout = await sellerOf().sdk.checkouts.create({ products: [productId] });
    const confirmed = await pay(serverOf(), checkout, { customerEmail: email });
    return { customerId: confirmed.customerId! };
  }

  /**
   * Connects the customer's account through the portal's authorize URL and the provider's redirects (no browser);
   * returns the customer session token.
   */
  async function connect(customerId: string, platform: "github" | "discord"): Promise<string> {
    const server = serverOf();
    const session = await sellerOf().sdk.customerSessions.create({ customerId });
    const start = await fetch(`${server.url}/v1/customer-portal/customers/me/oauth-accounts/authorize?platform=${platform}`, {
      headers: { authorization: `Bearer ${session.token}` },
    });
    expect(start.status).toBe(200);
    const { url } = (await start.json()) as { url: string };
    const approved = await fetch(url, { redirect: "manual" });
    expect(approved.status).toBe(302);
    const back = await fetch(approved.headers.get("location")!, { redirect: "manual" });
    expect(back.status).toBe(302);
    expect(back.headers.get("location")).toContain(`oauth_connected=${platform}`);
    return session.token;
  }

  async function githubBenefit(repository: string, permission: "pull" | "push" | "admin" = "pull") {
    const [owner, name] = repository.split("/");
    return sellerOf().sdk.benefits.create({
      type: "github_repository",
      description: `Access to ${repository}`,
      properties: { repositoryOwner: owner!, repositoryName: name!, permission },
    });
  }

  async function productWith(benefitId: string, kind: "fixed" | "monthly" = "fixed") {
    const product = await createProduct(sellerOf(), kind);
    await sellerOf().sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefitId] } });
    return product;
  }

  const sqlRows = <T>(query: SQL) => rowsOf<T>(serverOf(), query);

  return { api, until, grantsOf, grantOf, buy, connect, githubBenefit, productWith, sqlRows };
}
