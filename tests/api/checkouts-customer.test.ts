// /v1/checkouts, what the customer brings: discounts (codes, windows, restrictions, redemption limits under
// concurrency), customer data and tax ids, custom fields.
import { eq } from "drizzle-orm";
import { AlreadyActiveSubscriptionError } from "@polar-sh/sdk/models/errors/alreadyactivesubscriptionerror.js";
import { describe, expect, it } from "vitest";
import { discount } from "../../server/db/schema/index.js";
import { issues, locs } from "../helpers/api.js";
import { createProduct, pay, publicRequest, publicSdk, tokenize, uniqueBuyer } from "../helpers/checkout.js";
import { checkoutFixture } from "./checkouts-fixtures.js";

const fx = checkoutFixture();

const HOUR = 3600_000;

describe("discounts", () => {
  it("applies fixed and percentage discounts by id (seller) and by code (customer)", async () => {
    const tenPercent = await fx.seller.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 1000, name: "Ten" });
    const fiveOff = await fx.seller.sdk.discounts.create({
      type: "fixed",
      duration: "forever",
      amount: 500,
      currency: "usd",
      name: "Five off",
      code: "FIVEOFF",
    });
    const byId = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id], discountId: tenPercent.id });
    expect(byId).toMatchObject({ discountId: tenPercent.id, discountAmount: 250, netAmount: 2250, totalAmount: 2250 });
    expect(byId.discount).toMatchObject({ id: tenPercent.id, type: "percentage", basisPoints: 1000, duration: "once", name: "Ten", code: null });

    const created = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] });
    const client = publicSdk(fx.server).checkouts;
    const coded = await client.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { discountCode: "fiveoff" } });
    expect(coded).toMatchObject({ discountId: fiveOff.id, discountAmount: 500, totalAmount: 2000 });
    const removed = await client.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { discountCode: null } });
    expect(removed).toMatchObject({ discountId: null, discountAmount: 0, totalAmount: 2500 });
    const unknown = await publicRequest(fx.server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, { discount_code: "NOPE123" });
    expect(unknown.status).toBe(422);
    expect(issues(unknown.body)[0]).toMatchObject({ loc: ["body", "discount_code"], msg: "Discount does not exist." });

    await client.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { discountCode: "FIVEOFF" } });
    await pay(fx.server, created);
    const [o] = (await fx.seller.sdk.orders.list({ checkoutId: created.id })).result.items;
    expect(o).toMatchObject({ subtotalAmount: 2500, discountAmount: 500, netAmount: 2000, totalAmount: 2000, discountId: fiveOff.id });
    expect(o?.discount).toMatchObject({ id: fiveOff.id, amount: 500 });
    expect((await fx.seller.sdk.discounts.get({ id: fiveOff.id })).redemptionsCount).toBe(1);
  });

  it("refuses discounts outside their window, restricted to other products, repeating on one-time products, or with codes off", async () => {
    const day = 24 * HOUR;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ endsAt: new Date(Date.now() - day) }, "Discount is no longer redeemable."],
      [{ startsAt: new Date(Date.now() + day) }, "Discount is not yet redeemable."],
      [{ products: [fx.monthly.id] }, "Discount is not applicable to this product."],
      [{ duration: "repeating", durationInMonths: 3 }, "Discount is not applicable to this product."],
    ];
    for (const [extra, msg] of cases) {
      const d = await fx.seller.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 500, name: "Edge", ...extra } as Parameters<typeof fx.seller.sdk.discounts.create>[0]);
      const res = await fx.raw(fx.seller.token, "POST", "/v1/checkouts/", { products: [fx.fixed.id], discount_id: d.id });
      expect(res.status, msg).toBe(422);
      expect(issues(res.body)[0]).toMatchObject({ loc: ["body", "discount_id"], msg });
    }
    const onFree = await fx.seller.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 500, name: "Free?", code: "FREEDISC" });
    const freeCheckout = await fx.seller.sdk.checkouts.create({ products: [fx.free.id] });
    const refused = await publicRequest(fx.server, "PATCH", `/v1/checkouts/client/${freeCheckout.clientSecret}`, { discount_code: "FREEDISC" });
    expect(issues(refused.body)[0]).toMatchObject({ msg: "Discounts are not applicable to this product." });
    expect(onFree.id).toBeTruthy();

    const noCodes = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id], allowDiscountCodes: false });
    const codeRefused = await publicRequest(fx.server, "PATCH", `/v1/checkouts/client/${noCodes.clientSecret}`, { discount_code: "FIVEOFF" });
    expect(issues(codeRefused.body)[0]).toMatchObject({ loc: ["body", "discount_code"], msg: "Discount codes are not accepted on this checkout." });
    const foreign = await fx.other.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 500, name: "Foreign" });
    const foreignRes = await fx.raw(fx.seller.token, "POST", "/v1/checkouts/", { products: [fx.fixed.id], discount_id: foreign.id });
    expect(issues(foreignRes.body)[0]).toMatchObject({ loc: ["body", "discount_id"], msg: "Discount does not exist." });
  });

  it("20 parallel checkouts against max_redemptions 5: exactly 5 are confirmed, the rest get a clear 422", async () => {
    const limited = await fx.seller.sdk.discounts.create({
      type: "percentage",
      duration: "once",
      basisPoints: 5000,
      name: "Half off, five times",
      maxRedemptions: 5,
    });
    const checkouts = await Promise.all(
      Array.from({ length: 20 }, () => fx.seller.sdk.checkouts.create({ products: [fx.fixed.id], discountId: limited.id })),
    );
    const tokens = await Promise.all(checkouts.map((c) => tokenize(fx.server, c.clientSecret)));
    const before = await fx.countRows(fx.seller.organizationId);
    const results = await Promise.all(
      checkouts.map((c, i) =>
        publicRequest(fx.server, "POST", `/v1/checkouts/client/${c.clientSecret}/confirm`, {
          customer_email: uniqueBuyer("race"),
          customer_name: "Racer",
          customer_billing_address: { country: "FR" },
          confirmation_token_id: tokens[i],
        }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      expect(r.status).toBe(422);
      expect(issues(r.body)).toEqual([
        { loc: ["body", "discount_id"], msg: "Discount is no longer redeemable.", type: "value_error", code: "discount_over" },
      ]);
    }
    const [row] = await fx.db().select().from(discount).where(eq(discount.id, limited.id));
    expect(row?.redemptionsCount).toBe(5);
    const after = await fx.countRows(fx.seller.organizationId);
    expect(after.orders - before.orders).toBe(5);
    expect(after.customers - before.customers).toBe(5);
    // the refused checkouts stay open: the customer may remove the discount and pay full price
    const loser = checkouts[results.findIndex((r) => r.status !== 200)];
    expect((await fx.seller.sdk.checkouts.get({ id: loser?.id ?? "" })).status).toBe("open");
  });
});

describe("customer data", () => {
  it("derives the billing address fields like Polar and requires them at confirm", async () => {
    const required = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id], requireBillingAddress: true });
    expect(required.billingAddressFields).toEqual({
      country: "required",
      state: "optional",
      city: "required",
      postalCode: "required",
      line1: "required",
      line2: "optional",
    });
    const us = await publicSdk(fx.server).checkouts.clientUpdate({
      clientSecret: (await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] })).clientSecret,
      checkoutUpdatePublic: { customerBillingAddress: { country: "US" } },
    });
    expect(us.billingAddressFields).toMatchObject({ country: "required", state: "required", line1: "required", city: "required" });

    const token = await tokenize(fx.server, required.clientSecret);
    const res = await publicRequest(fx.server, "POST", `/v1/checkouts/client/${required.clientSecret}/confirm`, {
      customer_email: uniqueBuyer(),
      customer_billing_address: { country: "FR", city: "Paris" },
      confirmation_token_id: token,
    });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([
      ["body", "customer_name"],
      ["body", "customer_billing_address", "postal_code"],
      ["body", "customer_billing_address", "line1"],
    ]);
    expect(issues(res.body)[0]).toMatchObject({ msg: "Field is required.", type: "missing" });
    const noEmail = await publicRequest(fx.server, "POST", `/v1/checkouts/client/${required.clientSecret}/confirm`, {});
    expect(locs(noEmail.body)).toContainEqual(["body", "customer_email"]);
  });

  it("business customers: tax id checked against the billing country, billing name required; saved on the customer", async () => {
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id], isBusinessCustomer: true });
    expect(created.billingAddressFields).toMatchObject({ line1: "required", city: "required", postalCode: "required" });
    const noCountry = await fx.raw(fx.seller.token, "POST", "/v1/checkouts/", { products: [fx.fixed.id], customer_tax_id: "FR40303265045" });
    expect(issues(noCountry.body)[0]).toMatchObject({ loc: ["body", "customer_billing_address"], msg: "Country is required to validate tax ID.", type: "missing" });
    const bad = await publicRequest(fx.server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, {
      customer_tax_id: "123",
      customer_billing_address: { country: "FR" },
    });
    expect(issues(bad.body)[0]).toMatchObject({ loc: ["body", "customer_tax_id"], msg: "Invalid tax ID.", input: "123" });
    const email = uniqueBuyer("biz");
    await pay(fx.server, created, {
      customerEmail: email,
      customerBillingName: "ACME SAS",
      customerTaxId: "FR 40 303 265 045",
      customerBillingAddress: { country: "FR", line1: "1 rue de la Paix", city: "Paris", postalCode: "75002" },
    });
    const after = await fx.seller.sdk.checkouts.get({ id: created.id });
    expect(after).toMatchObject({ status: "succeeded", customerTaxId: "FR40303265045", customerBillingName: "ACME SAS" });
    const [o] = (await fx.seller.sdk.orders.list({ checkoutId: created.id })).result.items;
    expect(o).toMatchObject({ billingName: "ACME SAS", billingAddress: { country: "FR", line1: "1 rue de la Paix", postalCode: "75002" } });
    expect(o?.customer).toMatchObject({ email, taxId: ["FR40303265045", "eu_vat"], billingAddress: { city: "Paris" } });
  });

  it("external customer id: creates the customer with it, and a later checkout knows the customer", async () => {
    const external = `user_${Date.now()}`;
    const email = uniqueBuyer("ext");
    const first = await fx.seller.sdk.checkouts.create({
      products: [fx.fixed.id],
      externalCustomerId: external,
      customerMetadata: { plan: "pro", seats: 3 },
    });
    expect(first).toMatchObject({ externalCustomerId: external, customerId: null });
    await pay(fx.server, first, { customerEmail: email, customerName: "Ext Buyer" });
    const [o] = (await fx.seller.sdk.orders.list({ checkoutId: first.id })).result.items;
    expect(o?.customer).toMatchObject({ externalId: external, email, name: "Ext Buyer", metadata: { plan: "pro", seats: 3 } });

    const second = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id], externalCustomerId: external });
    expect(second).toMatchObject({ customerId: o?.customerId, customerEmail: email, customerName: "Ext Buyer" });
    // the known customer's email cannot be swapped from the page
    const swapped = await publicSdk(fx.server).checkouts.clientUpdate({ clientSecret: second.clientSecret, checkoutUpdatePublic: { customerEmail: "else@example.com" } });
    expect(swapped.customerEmail).toBe(email);
    const byId = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id], customerId: o?.customerId ?? "" });
    expect(byId).toMatchObject({ customerId: o?.customerId, customerEmail: email });
    const unknown = await fx.raw(fx.seller.token, "POST", "/v1/checkouts/", { products: [fx.fixed.id], customer_id: crypto.randomUUID() });
    expect(issues(unknown.body)[0]).toMatchObject({ loc: ["body", "customer_id"], msg: "Customer does not exist." });
  });

  it("a customer buying again by email is matched, not duplicated; a second subscription is refused", async () => {
    const email = uniqueBuyer("again");
    const a = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] });
    const b = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] });
    await pay(fx.server, a, { customerEmail: email });
    await pay(fx.server, b, { customerEmail: email.toUpperCase() });
    const [oa] = (await fx.seller.sdk.orders.list({ checkoutId: a.id })).result.items;
    const [ob] = (await fx.seller.sdk.orders.list({ checkoutId: b.id })).result.items;
    expect(ob?.customerId).toBe(oa?.customerId);

    const sub1 = await fx.seller.sdk.checkouts.create({ products: [fx.monthly.id] });
    await pay(fx.server, sub1, { customerEmail: email });
    const sub2 = await fx.seller.sdk.checkouts.create({ products: [fx.monthly.id] });
    const refused = publicSdk(fx.server).checkouts.clientUpdate({ clientSecret: sub2.clientSecret, checkoutUpdatePublic: { customerEmail: email } });
    await expect(refused).rejects.toBeInstanceOf(AlreadyActiveSubscriptionError);
    await expect(refused).rejects.toMatchObject({ detail: "You already have an active subscription." });
    const confirm = await publicRequest(fx.server, "POST", `/v1/checkouts/client/${sub2.clientSecret}/confirm`, {
      customer_email: email,
      customer_name: "Again",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: await tokenize(fx.server, sub2.clientSecret),
    });
    expect(confirm).toMatchObject({ status: 403, body: { error: "AlreadyActiveSubscriptionError" } });
  });
});

describe("custom fields", () => {
  it("validates custom field data against the chosen product's fields; required ones at confirm", async () => {
    const [company, employees, plan, terms, birthday] = await Promise.all([
      fx.seller.sdk.customFields.create({ type: "text", slug: `company_${Date.now()}`, name: "Company", properties: { minLength: 3, maxLength: 20 } }),
      fx.seller.sdk.customFields.create({ type: "number", slug: `employees_${Date.now()}`, name: "Employees", properties: { ge: 1, le: 500 } }),
      fx.seller.sdk.customFields.create({
        type: "select",
        slug: `plan_${Date.now()}`,
        name: "Plan",
        properties: { options: [{ value: "a", label: "A" }, { value: "b", label: "B" }] },
      }),
      fx.seller.sdk.customFields.create({ type: "checkbox", slug: `terms_${Date.now()}`, name: "Terms", properties: {} }),
      fx.seller.sdk.customFields.create({ type: "date", slug: `birthday_${Date.now()}`, name: "Birthday", properties: { ge: 0 } }),
    ]);
    const product = await createProduct(fx.seller, "fixed", {
      attachedCustomFields: [
        { customFieldId: company.id, required: true },
        { customFieldId: employees.id, required: false },
        { customFieldId: plan.id, required: false },
        { customFieldId: terms.id, required: true },
        { customFieldId: birthday.id, required: false },
      ],
    });
    const created = await fx.seller.sdk.checkouts.create({ products: [product.id], customFieldData: { [company.slug]: "ACME", unknown: "dropped" } });
    expect(created.customFieldData).toEqual({ [company.slug]: "ACME" });
    expect(created.attachedCustomFields?.map((f) => f.customFieldId)).toEqual([company.id, employees.id, plan.id, terms.id, birthday.id]);

    const bad = await publicRequest(fx.server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, {
      custom_field_data: { [company.slug]: "AC", [employees.slug]: 501, [plan.slug]: "c", [terms.slug]: "yes", [birthday.slug]: "not a date" },
    });
    expect(bad.status).toBe(422);
    expect(issues(bad.body).map((i) => [i.loc.at(-1), i.msg])).toEqual([
      [company.slug, "String should have at least 3 characters"],
      [employees.slug, "Input should be less than or equal to 500"],
      [plan.slug, "Input should be 'a' or 'b'"],
      [terms.slug, "Input should be a valid boolean"],
      [birthday.slug, "Input should be a valid date"],
    ]);
    const token = await tokenize(fx.server, created.clientSecret);
    const unchecked = await publicRequest(fx.server, "POST", `/v1/checkouts/client/${created.clientSecret}/confirm`, {
      customer_email: uniqueBuyer(),
      customer_name: "Fields",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: token,
      custom_field_data: { [company.slug]: null },
    });
    expect(unchecked.status).toBe(422);
    expect(issues(unchecked.body)).toEqual([
      { loc: ["body", "custom_field_data", company.slug], msg: "Field is required.", type: "missing", input: null, code: "required" },
      { loc: ["body", "custom_field_data", terms.slug], msg: "Field is required.", type: "missing", input: null, code: "required" },
    ]);
    const data = { [company.slug]: "ACME Corp", [employees.slug]: 42, [plan.slug]: "b", [terms.slug]: true, [birthday.slug]: "1990-05-17" };
    await pay(fx.server, created, { customFieldData: data });
    const [o] = (await fx.seller.sdk.orders.list({ checkoutId: created.id })).result.items;
    expect(o?.customFieldData).toEqual(data);
  });
});
