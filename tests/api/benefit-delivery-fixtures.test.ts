// A github_repository grant and its revoke against GitHub's recorded responses (@octokit/fixtures,
// scenario add-and-remove-repository-collaborator, served by @octokit/fixtures-server on loopback; see
// tests/helpers/github-fixtures.ts for what runs against recordings and what against the hand-written peer).
// Till's own delivery code runs in the jobs worker: the grant invites the connected account (the recorded 201
// invitation), the customer accepts on GitHub (the recording's PATCH, made by the test as user B), and a refund
// with revoke_benefits removes the collaborator (the recorded 204). The fixtures server answers only in the
// recorded order and only requests that match the recording, so the test's last recorded request succeeding
// proves till made each of its requests, in order, as recorded.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { rowsOf } from "../helpers/delivery-flow.js";
import { GithubPeer } from "../helpers/delivery-peers.js";
import { COLLABORATOR_SCENARIO as S, collaboratorScenario, GithubFixturesServer } from "../helpers/github-fixtures.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

type Grant = {
  id: string;
  customer_id: string;
  is_revoked: boolean;
  error: { message: string; type: string } | null;
  properties: Record<string, unknown>;
};

let server: TestServer;
let seller: Seller;
const fixtures = new GithubFixturesServer();
/** OAuth and GET /user (no recording has them for user B): the hand-written peer. */
const oauth = new GithubPeer();
let scenarioUrl = "";

// TILL_GITHUB_API_URL: GET /user (the account connection's who-am-I) goes to the peer, every other request to
// the loaded scenario, byte for byte.
const router = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const target = req.method === "GET" && req.url === "/user" ? `${oauth.url}/user` : `${scenarioUrl}${req.url ?? ""}`;
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k, v]) => typeof v === "string" && !["host", "connection", "content-length", "transfer-encoding"].includes(k)),
    ) as Record<string, string>;
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    fetch(target, { method: req.method ?? "GET", headers, ...(body ? { body } : {}) })
      .then(async (r) => {
        const out = Buffer.from(await r.arrayBuffer());
        const back: Record<string, string> = {};
        r.headers.forEach((v, k) => {
          if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(k)) back[k] = v;
        });
        res.writeHead(r.status, back);
        res.end(out);
      })
      .catch((err: unknown) => {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(String(err));
      });
  });
});

async function until<T>(what: string, fn: () => Promise<T | undefined | false | null>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    server.worker.wake();
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function grantOf(benefitId: string, customerId: string): Promise<Grant | undefined> {
  const res = await rawRequest(server.url, seller.token, "GET", `/v1/benefits/${benefitId}/grants?limit=100`);
  return (res.body as { items: Grant[] }).items.find((g) => g.customer_id === customerId);
}

/** A request of the recording the test makes itself (as the seller, user A, or the customer, user B). */
async function asRecorded(method: string, path: string, token: string) {
  const res = await fetch(`${scenarioUrl}${path}`, {
    method,
    headers: { accept: "application/vnd.github.v3+json", authorization: `token ${token}` },
    // the recorded PATCH carries content-length: 0
    ...(method === "PATCH" ? { body: "" } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}

beforeAll(async () => {
  await Promise.all([fixtures.start({ [S.name]: collaboratorScenario("push") }), oauth.start()]);
  await new Promise<void>((r) => router.listen(0, "127.0.0.1", r));
  const routerUrl = `http://127.0.0.1:${(router.address() as AddressInfo).port}`;
  server = await startServer({ TILL_GITHUB_API_URL: routerUrl, TILL_GITHUB_OAUTH_URL: oauth.url });
  await server.worker.start();
  seller = await createSeller(server, "fixtures");
  // the recording's seller is user A, with token …0001
  const connected = await rawRequest(server.url, seller.token, "PUT", "/v1/benefit-integrations/github", {
    token: S.sellerToken,
    client_id: "gh-client",
    client_secret: "gh-secret",
  });
  expect(connected.status).toBe(200);
  oauth.addUser(S.invitee);
  oauth.oauth.user = S.invitee.login;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await new Promise<void>((r) => router.close(() => r()));
  await Promise.all([fixtures.stop(), oauth.stop()]);
});

describe("github_repository against GitHub's recorded responses", () => {
  it("invites the connected account (recorded 201), and on a refund with revoke_benefits removes the collaborator (recorded 204)", async () => {
    scenarioUrl = await fixtures.load(S.name);
    const benefit = await seller.sdk.benefits.create({
      type: "github_repository",
      description: "The recorded repository",
      properties: { repositoryOwner: S.owner, repositoryName: S.repo, permission: "push" },
    });
    const product = await createProduct(seller, "fixed");
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    const confirmed = await pay(server, await seller.sdk.checkouts.create({ products: [product.id] }), { customerEmail: uniqueBuyer("fixtures") });
    const customerId = confirmed.customerId!;
    await until("the wait for an account", async () => (await grantOf(benefit.id, customerId))?.error?.type === "account_not_connected");

    // the customer connects user B's GitHub account: the grant heals, and till's PUT gets the recorded invitation
    const session = await seller.sdk.customerSessions.create({ customerId });
    const start = await fetch(`${server.url}/v1/customer-portal/customers/me/oauth-accounts/authorize?platform=github`, {
      headers: { authorization: `Bearer ${session.token}` },
    });
    const { url } = (await start.json()) as { url: string };
    const approved = await fetch(url, { redirect: "manual" });
    const back = await fetch(approved.headers.get("location")!, { redirect: "manual" });
    expect(back.headers.get("location")).toContain("oauth_connected=github");
    const granted = await until("the recorded invitation", async () => {
      const g = await grantOf(benefit.id, customerId);
      return g?.properties.invitation_id === S.invitationId && g;
    });
    expect(granted.error).toBeNull();
    expect(granted.properties).toMatchObject({
      repository_owner: S.owner,
      repository_name: S.repo,
      permission: "push",
      account_id: String(S.invitee.id),
      granted_account_id: String(S.invitee.id),
      account_username: S.invitee.login,
      granted_repository: `${S.owner}/${S.repo}`,
    });

    // the seller sees the pending invitation till made, with push ("write") permission; the customer accepts it
    const invitations = await asRecorded("GET", `/repos/${S.owner}/${S.repo}/invitations`, S.sellerToken);
    expect(invitations.status).toBe(200);
    expect(invitations.body).toEqual([expect.objectContaining({ id: S.invitationId, permissions: "write", invitee: expect.objectContaining({ login: S.invitee.login }) })]);
    expect((await asRecorded("PATCH", `/user/repository_invitations/${S.invitationId}`, S.inviteeToken)).status).toBe(204);
    const collaborators = await asRecorded("GET", `/repos/${S.owner}/${S.repo}/collaborators`, S.sellerToken);
    expect((collaborators.body as Array<{ login: string }>).map((c) => c.login)).toContain(S.invitee.login);

    // a refund with revoke_benefits: till cancels its invitation (accepted: 404) and removes the collaborator
    const [order] = (await seller.sdk.orders.list({ productId: product.id })).result.items;
    await seller.sdk.refunds.create({ orderId: order!.id, reason: "customer_request", amount: order!.totalAmount, revokeBenefits: true });
    const revoked = await until("the revoke delivered", async () => {
      const g = await grantOf(benefit.id, customerId);
      return g?.is_revoked && g.properties.granted_repository === null && g;
    });
    expect(revoked.error).toBeNull();
    const deliveries = await rowsOf<{ action: string; status: string }>(server, sql`SELECT action, status, last_error FROM benefit_delivery WHERE grant_id = ${revoked.id} ORDER BY created_at`);
    expect(deliveries.filter((d) => d.status === "done").map((d) => d.action)).toContain("revoke");

    // the recording's last request: only answered when every one before it was made, in order
    const after = await asRecorded("GET", `/repos/${S.owner}/${S.repo}/collaborators`, S.sellerToken);
    expect(after.status).toBe(200);
    expect((after.body as Array<{ login: string }>).map((c) => c.login)).not.toContain(S.invitee.login);
  }, 90_000);
});
