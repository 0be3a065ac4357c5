// /v1/organizations through @polar-sh/sdk 0.47.1 (and 0.49.0): get, list, update, validation, tenancy.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawOn } from "../helpers/api.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "orgs");
  other = await createSeller(server, "other");
});
afterAll(async () => server?.close());

const raw = rawOn(() => server);

describe("/v1/organizations", () => {
  it("gets the caller's organization with the spec's defaults", async () => {
    const org = await seller.sdk.organizations.get({ id: seller.organizationId });
    expect(org.id).toBe(seller.organizationId);
    expect(org.slug).toBe(seller.slug);
    expect(org.featureSettings).toMatchObject({ issueFundingEnabled: false, seatBasedPricingEnabled: false });
    expect(org.subscriptionSettings).toMatchObject({
      allowMultipleSubscriptions: false,
      allowCustomerUpdates: true,
      prorationBehavior: "prorate",
    });
    expect(org.notificationSettings).toEqual({ newOrder: true, newSubscription: true });
    expect(Object.values(org.customerEmailSettings).every((v) => v === true)).toBe(true);
    // every organization is active while the suite runs with TILL_TEST_PAYMENTS=live (organization-status.test.ts:
    // without)
    expect(org.status).toBe("active");
  });

  it("lists only the caller's organizations (0.47.1 list, 0.49.0 listOrganizations)", async () => {
    const page = await seller.sdk.organizations.list({});
    expect(page.result.items.map((o) => o.id)).toEqual([seller.organizationId]);
    expect(page.result.pagination).toEqual({ totalCount: 1, maxPage: 1 });
    const page049 = await seller.sdk049.organizations.listOrganizations({});
    expect(page049.result.items.map((o) => o.id)).toEqual([seller.organizationId]);
    const bySlug = await seller.sdk.organizations.list({ slug: "no-such-slug" });
    expect(bySlug.result).toEqual({ items: [], pagination: { totalCount: 0, maxPage: 0 } });
  });

  it("pages through a member's organizations (total on every page, past the end too); a key lists its own", async () => {
    const member = await createSeller(server, "many");
    const ids = [member.organizationId];
    for (const i of [2, 3]) {
      const slug = `${member.slug}-${i}`;
      const res = await member.client.post<{ id: string }>("/api/auth/organization/create", { name: `Many ${i}`, slug });
      expect(res.status, res.text).toBe(200);
      ids.push(res.body.id);
    }
    const pages = [];
    for (const pageNo of [1, 2, 3, 4]) pages.push((await member.sdk.organizations.list({ page: pageNo, limit: 1 })).result);
    expect(pages.map((p) => p.items.map((o) => o.id))).toEqual([[ids[0]], [ids[1]], [ids[2]], []]);
    expect(pages.map((p) => p.pagination)).toEqual(Array(4).fill({ totalCount: 3, maxPage: 3 }));
    const bySlug = (await member.sdk.organizations.list({ slug: `${member.slug}-3` })).result;
    expect(bySlug.items.map((o) => o.id)).toEqual([ids[2]]);
    expect(bySlug.pagination).toEqual({ totalCount: 1, maxPage: 1 });

    const key = sdkFor(server, await member.createKey());
    const own = (await key.organizations.list({})).result;
    expect(own.items.map((o) => o.id)).toEqual([member.organizationId]);
    expect(own.pagination).toEqual({ totalCount: 1, maxPage: 1 });
    expect((await key.organizations.list({ slug: `${member.slug}-2` })).result.items).toEqual([]);
    expect((await key.organizations.list({ page: 2 })).result).toEqual({ items: [], pagination: { totalCount: 1, maxPage: 1 } });
  });

  it("updates settings, socials and the email settings", async () => {
    const updated = await seller.sdk.organizations.update({
      id: seller.organizationId,
      organizationUpdate: {
        name: "Renamed Org",
        email: "billing@example.com",
        website: "https://example.com",
        socials: [{ platform: "github", url: "https://github.com/example" }],
        subscriptionSettings: {
          allowMultipleSubscriptions: true,
          allowCustomerUpdates: false,
          prorationBehavior: "invoice",
          benefitRevocationGracePeriod: 0,
          preventTrialAbuse: false,
        },
        notificationSettings: { newOrder: false, newSubscription: true },
        customerEmailSettings: {
          orderConfirmation: false,
          subscriptionCancellation: true,
          subscriptionConfirmation: true,
          subscriptionCycled: true,
          subscriptionCycledAfterTrial: true,
          subscriptionPastDue: true,
          subscriptionRenewalReminder: true,
          subscriptionRevoked: true,
          subscriptionTrialConversionReminder: true,
          subscriptionUncanceled: true,
          subscriptionUpdated: true,
        },
      },
    });
    expect(updated.name).toBe("Renamed Org");
    expect(updated.email).toBe("billing@example.com");
    expect(updated.socials).toEqual([{ platform: "github", url: "https://github.com/example" }]);
    expect(updated.subscriptionSettings.prorationBehavior).toBe("invoice");
    expect(updated.notificationSettings.newOrder).toBe(false);
    expect(updated.customerEmailSettings.orderConfirmation).toBe(false);
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    const again = await seller.sdk049.organizations.get({ id: seller.organizationId });
    expect(again.name).toBe("Renamed Org");
  });

  it("refuses bad input with 422 and changes nothing", async () => {
    const before = await seller.sdk.organizations.get({ id: seller.organizationId });
    const bad = await raw(seller.token, "PATCH", `/v1/organizations/${seller.organizationId}`, {
      name: "ok name",
      subscription_settings: { allow_multiple_subscriptions: "yes", allow_customer_updates: true, proration_behavior: "sometimes" },
    });
    expect(bad.status).toBe(422);
    const detail = bad.body.detail as Array<{ loc: unknown[]; type: string }>;
    expect(detail.map((d) => d.loc)).toEqual(
      expect.arrayContaining([
        ["body", "subscription_settings", "allow_multiple_subscriptions"],
        ["body", "subscription_settings", "proration_behavior"],
      ]),
    );
    const badJson = await raw(seller.token, "PATCH", `/v1/organizations/${seller.organizationId}`, "{not json");
    expect(badJson.status).toBe(422);
    const badId = await raw(seller.token, "GET", "/v1/organizations/not-a-uuid");
    expect(badId.status).toBe(422);
    const after = await seller.sdk.organizations.get({ id: seller.organizationId });
    expect(after.name).toBe(before.name);
  });

  it("answers another organization's id with 404 and a missing token with 401", async () => {
    await expect(seller.sdk.organizations.get({ id: other.organizationId })).rejects.toMatchObject({
      error: "ResourceNotFound",
    });
    const patch = await raw(seller.token, "PATCH", `/v1/organizations/${other.organizationId}`, { name: "hijack" });
    expect(patch.status).toBe(404);
    expect(patch.body).toMatchObject({ error: "ResourceNotFound" });
    const anon = await fetch(`${server.url}/v1/organizations/${seller.organizationId}`);
    expect(anon.status).toBe(401);
    expect(await anon.json()).toMatchObject({ error: "Unauthorized" });
    const garbage = await raw("garbage-token", "GET", `/v1/organizations/${seller.organizationId}`);
    expect(garbage.status).toBe(401);
  });
});
