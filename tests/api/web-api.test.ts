// /api/web/*, the seller web app's door to the API (server/http/web-api.ts): the session cookie becomes the
// session's bearer on /v1 and /api/whoami, the sandbox header and idempotency keys pass through, and a call
// without the Till-Web header (what another site's form or link would make) or without a session is refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
const WEB = { "till-web": "1" };

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "door");
});
afterAll(async () => server?.close());

describe("/api/web", () => {
  it("answers /v1 as the session, on the side Till-Sandbox names", async () => {
    const q = `organization_id=${seller.organizationId}`;
    const live = await seller.client.request("POST", `/api/web/v1/products/?${q}`, {
      headers: { ...WEB, "idempotency-key": "door-1" },
      json: { name: "Door product", prices: [{ amount_type: "fixed", price_amount: 700, price_currency: "usd" }] },
    });
    expect(live.status, live.text).toBe(201);
    // the same key again: the stored answer, not a second product
    const again = await seller.client.request("POST", `/api/web/v1/products/?${q}`, {
      headers: { ...WEB, "idempotency-key": "door-1" },
      json: { name: "Door product", prices: [{ amount_type: "fixed", price_amount: 700, price_currency: "usd" }] },
    });
    expect((again.body as { id: string }).id).toBe((live.body as { id: string }).id);
    const listed = await seller.client.get<{ pagination: { total_count: number } }>(`/api/web/v1/products/?${q}`, WEB);
    expect(listed.body.pagination.total_count).toBe(1);

    const who = await seller.client.get<{ organization_id: string; sandbox: boolean; roles: string[] }>(`/api/web/whoami?${q}`, { ...WEB, "till-sandbox": "true" });
    expect(who.status).toBe(200);
    expect(who.body.sandbox).toBe(true);
    expect(who.body.roles).toEqual(["owner"]);
    expect(who.body.organization_id).not.toBe(seller.organizationId);
    const sandbox = await seller.client.get<{ pagination: { total_count: number } }>(`/api/web/v1/products/?organization_id=${who.body.organization_id}`, { ...WEB, "till-sandbox": "true" });
    expect(sandbox.body.pagination.total_count).toBe(0);
    // the API's own errors come through as they are
    const missing = await seller.client.get(`/api/web/v1/products/00000000-0000-4000-8000-000000000000?${q}`, WEB);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: "ResourceNotFound" });
  });

  it("refuses a call without Till-Web: 1 or without a session, and names no other route", async () => {
    const noHeader = await seller.client.get(`/api/web/v1/products/?organization_id=${seller.organizationId}`);
    expect(noHeader.status).toBe(403);
    const noSession = await fetch(`${server.url}/api/web/v1/products/`, { headers: WEB });
    expect(noSession.status).toBe(401);
    const other = await seller.client.get("/api/web/auth/get-session", WEB);
    expect(other.status).toBe(404);
  });

  it("lists one side's API keys a page at a time (/api/auth/api-key/page), for members whose role may read them", async () => {
    for (let i = 0; i < 3; i++) await seller.createSandboxKey();
    await seller.createKey();
    const q = (side: string, page: number) => `/api/auth/api-key/page?organizationId=${seller.organizationId}&side=${side}&page=${page}&limit=2`;
    type Page = { items: Array<{ start: string; key?: string }>; pagination: { total_count: number; max_page: number } };
    const first = await seller.client.get<Page>(q("sandbox", 1));
    expect(first.status, first.text).toBe(200);
    expect(first.body.pagination).toEqual({ total_count: 3, max_page: 2 });
    expect(first.body.items.map((k) => k.start.slice(0, 10))).toEqual(["till_test_", "till_test_"]);
    expect(first.body.items.every((k) => k.key === undefined)).toBe(true);
    expect((await seller.client.get<Page>(q("sandbox", 2))).body.items).toHaveLength(1);
    expect((await seller.client.get<Page>(q("live", 1))).body.pagination.total_count).toBe(1);
    const stranger = await createSeller(server, "stranger");
    expect((await stranger.client.get(q("live", 1))).status).toBe(403);
    expect((await seller.client.get(`/api/auth/api-key/page?organizationId=${seller.organizationId}&side=both`)).status).toBe(400);
  });
});
