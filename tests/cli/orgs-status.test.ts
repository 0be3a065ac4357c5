// `till orgs status|submit` and `till admin orgs list|approve|deny` as child processes against a server that
// requires review (TILL_ORG_REVIEW=required) and runs as in production (no TILL_TEST_PAYMENTS=live).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { user } from "../../server/db/schema/index.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let admin: Seller;
let sellerCli: TillOptions;
let adminCli: TillOptions;

function sessionProfile(s: Seller): TillOptions {
  const configDir = tempConfigDir();
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const profile = { server: server.url, token: s.token, user: { id: s.user.id, email: s.user.email, name: "Test User" }, organization: { id: s.organizationId, name: "Org", slug: s.slug } };
  writeFileSync(path.join(configDir, "config.json"), JSON.stringify({ profiles: { default: profile } }), { mode: 0o600 });
  return { configDir, env: {} };
}

const ok = (r: TillResult) => {
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
};

beforeAll(async () => {
  server = await startServer({ TILL_TEST_PAYMENTS: undefined, TILL_ORG_REVIEW: "required" });
  [seller, admin] = await Promise.all([createSeller(server, "cli-status"), createSeller(server, "cli-admin")]);
  await server.database.db.update(user).set({ role: "admin" }).where(eq(user.id, admin.user.id));
  sellerCli = sessionProfile(seller);
  adminCli = sessionProfile(admin);
});
afterAll(async () => server?.close());

describe("till orgs status and till admin orgs", () => {
  it("shows a new organization's status with the next step, and submit asks for every detail", async () => {
    const shown = ok(await till(["orgs", "status"], sellerCli));
    expect(shown.stdout).toContain("created");
    expect(shown.stdout).toContain("till orgs submit");
    const partial = await till(["orgs", "submit", "--about", "We make tools"], sellerCli);
    expect(partial.exitCode).toBe(2);
    expect(partial.stderr).toContain("missing --product-description, --intended-use");
    const submitted = ok(await till(["orgs", "submit", "--about", "We make tools", "--product-description", "A hosted app", "--intended-use", "Subscriptions"], sellerCli));
    expect(submitted.stdout).toContain("Status: under_review");
  });

  it("refuses the admin side to a seller, lists the queue for an admin, denies with a reason the seller reads", async () => {
    const refused = await till(["admin", "orgs", "list"], sellerCli);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain("Only a platform admin");
    const queue = parseJson<Array<{ slug: string }>>(ok(await till(["admin", "orgs", "list", "--status", "under_review", "--json"], adminCli)).stdout);
    expect(queue.map((o) => o.slug)).toEqual([seller.slug]);
    expect((await till(["admin", "orgs", "list", "--status", "pending"], adminCli)).stderr).toContain("is not a status");
    expect((await till(["admin", "orgs", "deny", seller.slug], adminCli)).stderr).toContain("--reason is required");
    ok(await till(["admin", "orgs", "deny", seller.slug, "--reason", "Say what the app does"], adminCli));
    const shown = ok(await till(["orgs", "status"], sellerCli)).stdout;
    expect(shown).toContain("denied");
    expect(shown).toContain("Say what the app does");
  });

  it("approves: the seller is told Stripe is still missing", async () => {
    ok(await till(["orgs", "submit", "--about", "We make tools", "--product-description", "A hosted invoicing app", "--intended-use", "Subscriptions"], sellerCli));
    const approved = ok(await till(["admin", "orgs", "approve", seller.slug], adminCli));
    expect(approved.stdout).toContain("still needs a Stripe account");
    const report = parseJson<{ status: string; next_step: { step: string } }>(ok(await till(["orgs", "status", "--json"], sellerCli)).stdout);
    expect(report).toMatchObject({ status: "onboarding_started", next_step: { step: "payment_processor" } });
  });
});
