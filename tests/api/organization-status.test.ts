// The organization's lifecycle (the spec's states) on servers run as in production (no TILL_TEST_PAYMENTS=live):
// created → onboarding_started (legal details) → active (business details submitted and Stripe connected with live
// keys); with TILL_ORG_REVIEW=required through under_review → denied (with its reason) → under_review again →
// active, decided by a platform admin. Each move sends organization.updated, accepted by both SDKs; a live
// checkout of a paid product is refused until the organization is active, saying what is missing.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { user } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct } from "../helpers/checkout.js";
import { reservePort } from "../helpers/ports.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { StripePeer } from "../helpers/stripe-peer.js";

const LIVE = { secret_key: "sk_live_51TillStatusCccccccccccccccccc9012", publishable_key: "pk_live_51TillStatusEeeeeeeeeeeeeeeeee" };
const LIVE2 = { secret_key: "sk_live_51TillReviewCccccccccccccccccc9012", publishable_key: "pk_live_51TillReviewEeeeeeeeeeeeeeeeee" };
const DETAILS = { about: "We make a CLI for invoices.", product_description: "Monthly subscriptions to a hosted tool.", intended_use: "Selling subscriptions to developers." };

let peer: StripePeer;
let receiver: Receiver;
let plain: TestServer;
let reviewed: TestServer;

async function start(env: Record<string, string | undefined>) {
  const { port, release } = await reservePort();
  await release();
  return startServer(
    {
      TILL_TEST_PAYMENTS: undefined, TILL_BASE_URL: "https://till.example.com",
      TILL_TRUSTED_ORIGINS: `http://127.0.0.1:${port}`, TILL_STRIPE_API_URL: peer.url,
      TILL_WEBHOOKS_ALLOW_PRIVATE: "true", ...env,
    },
    { port },
  );
}

beforeAll(async () => {
  peer = new StripePeer([
    { id: "acct_1Status", keys: [{ secret: LIVE.secret_key }, { secret: LIVE.publishable_key }] },
    { id: "acct_2Review", keys: [{ secret: LIVE2.secret_key }, { secret: LIVE2.publishable_key }] },
  ]);
  await peer.start();
  receiver = new Receiver();
  await receiver.start();
  [plain, reviewed] = await Promise.all([start({}), start({ TILL_ORG_REVIEW: "required" })]);
  await Promise.all([plain.worker.start(), reviewed.worker.start()]);
}, 120_000);
afterAll(async () => {
  await Promise.all([plain?.close(), reviewed?.close()]);
  await peer?.stop();
  await receiver?.stop();
});

/** Every organization.updated the seller's endpoint received, checked by both SDKs; their statuses in order. */
async function statusesSent(path: string, secret: string, count: number): Promise<string[]> {
  const hits = await receiver.until((all) => all.filter((h) => h.path === path).length >= count && all.filter((h) => h.path === path));
  return hits.map((h) => {
    const event = validateEvent(h.body, h.headers, secret);
    validateEvent049(h.body, h.headers, secret);
    if (event.type !== "organization.updated") throw new Error(event.type);
    return event.data.status;
  });
}

async function listen(server: TestServer, seller: Seller, path: string): Promise<string> {
  const endpoint = await seller.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}${path}`, format: "raw", events: ["organization.updated"] });
  return endpoint.secret;
}

const report = async (server: TestServer, token: string, id: string) => (await rawRequest(server.url, token, "GET", `/v1/organizations/${id}/status`)).body as {
  status: string;
  live_payments: boolean;
  next_step: { step: string; text: string; command: string | null } | null;
  steps: Array<{ step: string; done: boolean }>;
  review: { status: string | null; reason: string | null };
};

describe("an organization's lifecycle, without review", () => {
  let seller: Seller;
  let key: string;
  let secret: string;

  beforeAll(async () => {
    seller = await createSeller(plain, "lifecycle");
    key = await seller.createKey();
    secret = await listen(plain, seller, "/plain");
  });

  it("starts created, refuses a paid live checkout saying what is missing, and still checks out a free product", async () => {
    const live = sdkFor(plain, key);
    expect((await live.organizations.get({ id: seller.organizationId })).status).toBe("created");
    const r = await report(plain, key, seller.organizationId);
    expect(r).toMatchObject({ status: "created", live_payments: false, next_step: { step: "business_details" } });
    const paid = await createProduct({ ...seller, sdk: live }, "fixed");
    const refused = await rawRequest(plain.url, key, "POST", "/v1/checkouts/", { products: [paid.id] });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("PaymentNotReady");
    expect(refused.body.detail).toContain("status: created");
    expect(refused.body.detail).toContain("till orgs submit");
    expect(refused.body.detail).toContain("till stripe connect");
    const free = await createProduct({ ...seller, sdk: live }, "free");
    expect((await live.checkouts.create({ products: [free.id] })).status).toBe("open");
  });

  it("moves to onboarding_started with the legal details, and takes complete business details only", async () => {
    const legal = await rawRequest(plain.url, key, "PATCH", `/v1/organizations/${seller.organizationId}`, { invoice_details: { name: "Lifecycle Ltd" } });
    expect(legal.status).toBe(200);
    expect(legal.body.status).toBe("onboarding_started");
    const partial = await rawRequest(plain.url, key, "PATCH", `/v1/organizations/${seller.organizationId}`, { details: { about: "x" } });
    expect(partial.status).toBe(422);
    const submitted = await seller.sdk.organizations.update({
      id: seller.organizationId,
      organizationUpdate: { details: { about: DETAILS.about, productDescription: DETAILS.product_description, intendedUse: DETAILS.intended_use, switching: false } },
    });
    expect(submitted.status).toBe("onboarding_started");
    expect(submitted.detailsSubmittedAt).toBeInstanceOf(Date);
    expect((await report(plain, key, seller.organizationId)).next_step).toMatchObject({ step: "payment_processor", command: expect.stringContaining("till stripe connect --live") });
  });

  it("goes active when Stripe is connected with live keys, takes paid checkouts, and moves back when disconnected", async () => {
    const connected = await rawRequest(plain.url, key, "PUT", "/v1/stripe/connection", { ...LIVE, webhook_secret: "whsec_statusstatusstatus" });
    expect(connected.status, JSON.stringify(connected.body)).toBe(200);
    const live = sdkFor(plain, key);
    expect((await live.organizations.get({ id: seller.organizationId })).status).toBe("active");
    expect(await report(plain, key, seller.organizationId)).toMatchObject({ status: "active", live_payments: true, next_step: null });
    const paid = await createProduct({ ...seller, sdk: live }, "fixed");
    expect((await live.checkouts.create({ products: [paid.id] })).status).toBe("open");

    expect((await rawRequest(plain.url, key, "DELETE", "/v1/stripe/connection")).status).toBe(200);
    expect((await live.organizations.get({ id: seller.organizationId })).status).toBe("onboarding_started");
    expect(await statusesSent("/plain", secret, 4)).toEqual(["onboarding_started", "onboarding_started", "active", "onboarding_started"]);
  });

  it("keeps its sandbox active from the start", async () => {
    const sandboxKey = await seller.createSandboxKey();
    const sandbox = sdkFor(plain, sandboxKey);
    const [org] = (await sandbox.organizations.list({})).result.items;
    expect(org?.status).toBe("active");
    expect((await report(plain, sandboxKey, org!.id)).next_step).toBeNull();
  });
});

describe("with TILL_ORG_REVIEW=required", () => {
  let seller: Seller;
  let key: string;
  let secret: string;
  let admin: Seller;
  const submit = () => rawRequest(reviewed.url, key, "PATCH", `/v1/organizations/${seller.organizationId}`, { details: DETAILS });
  const adminCall = (method: string, path: string, body?: unknown, token = admin.token) => rawRequest(reviewed.url, token, method, `/v1/admin/organizations${path}`, body);

  beforeAll(async () => {
    [seller, admin] = await Promise.all([createSeller(reviewed, "reviewed"), createSeller(reviewed, "platform")]);
    // the seed's platform admin role
    await reviewed.database.db.update(user).set({ role: "admin" }).where(eq(user.id, admin.user.id));
    key = await seller.createKey();
    secret = await listen(reviewed, seller, "/reviewed");
  });

  it("puts submitted details under review; Stripe connected meanwhile does not make it active", async () => {
    expect((await submit()).body.status).toBe("under_review");
    expect((await rawRequest(reviewed.url, key, "PUT", "/v1/stripe/connection", { ...LIVE2, webhook_secret: "whsec_reviewreviewreview" })).status).toBe(200);
    const r = await report(reviewed, key, seller.organizationId);
    expect(r).toMatchObject({ status: "under_review", review: { status: "pending" }, next_step: { step: "review" } });
    const paid = await createProduct({ ...seller, sdk: sdkFor(reviewed, key) }, "fixed");
    const refused = await rawRequest(reviewed.url, key, "POST", "/v1/checkouts/", { products: [paid.id] });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("Wait for a platform admin to review your details");
  });

  it("refuses the admin side to anyone but a platform admin", async () => {
    const bySeller = await adminCall("GET", "/?status=under_review", undefined, seller.token);
    expect(bySeller.status).toBe(403);
    expect(bySeller.body).toMatchObject({ error: "NotPermitted" });
    expect((await adminCall("GET", "/", undefined, key)).status).toBe(403);
    expect((await adminCall("POST", `/${seller.organizationId}/approve`, undefined, seller.token)).status).toBe(403);
    expect((await adminCall("GET", "/", undefined, "nope")).status).toBe(401);
    expect((await report(reviewed, key, seller.organizationId)).status).toBe("under_review");
  });

  it("lists the queue; a denial needs a reason, which the seller reads; submitting again waits for review again", async () => {
    const queue = await adminCall("GET", "/?status=under_review");
    expect(queue.status).toBe(200);
    const items = queue.body.items as Array<{ id: string; details: unknown; owners: string[] }>;
    expect(items.map((o) => o.id)).toEqual([seller.organizationId]);
    expect(items[0]).toMatchObject({ details: DETAILS, owners: [seller.user.email] });
    expect((await adminCall("POST", `/${seller.organizationId}/deny`, { reason: " " })).status).toBe(422);
    expect((await adminCall("POST", `/${admin.organizationId}/deny`, { reason: "x" })).status).toBe(409);
    expect((await adminCall("POST", "/00000000-0000-4000-8000-000000000000/approve")).status).toBe(404);
    const denied = await adminCall("POST", `/${seller.organizationId}/deny`, { reason: "Tell us what the tool does." });
    expect(denied.body).toMatchObject({ status: "denied", review: { status: "denied", reason: "Tell us what the tool does." } });
    // a retry changes nothing
    expect((await adminCall("POST", `/${seller.organizationId}/deny`, { reason: "Tell us what the tool does." })).status).toBe(200);
    const r = await report(reviewed, key, seller.organizationId);
    expect(r).toMatchObject({ status: "denied", review: { reason: "Tell us what the tool does." }, next_step: { step: "business_details" } });
    expect((await submit()).body.status).toBe("under_review");
  });

  it("goes active when approved (Stripe connected), takes paid checkouts, and sent each move", async () => {
    const approved = await adminCall("POST", `/${seller.organizationId}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: "active", review: { status: "approved" } });
    expect((await adminCall("POST", `/${seller.organizationId}/approve`)).status).toBe(200);
    expect((await adminCall("GET", "/?status=under_review")).body.items).toEqual([]);
    const live = sdkFor(reviewed, key);
    const paid = await createProduct({ ...seller, sdk: live }, "fixed");
    expect((await live.checkouts.create({ products: [paid.id] })).status).toBe("open");
    expect(await statusesSent("/reviewed", secret, 4)).toEqual(["under_review", "denied", "under_review", "active"]);
  });
});
