// The set-up the catalog-as-code tests share (catalog*.test.ts): a server of the file's own, a new organization
// with its catalog client, a plan of a catalog against it, and the catalog files the tests start from.
import { PolarCore } from "@polar-sh/sdk/core.js";
import { afterAll, beforeAll } from "vitest";
import type { Catalog } from "../../cli/catalog/model.js";
import { planCatalog, type Plan, type PlanOptions } from "../../cli/catalog/plan.js";
import { catalogClient, fetchServerCatalog, type CatalogClient } from "../../cli/catalog/server.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

export interface Org {
  seller: Seller;
  client: CatalogClient;
}

export interface CatalogFixture {
  server: TestServer;
  newOrg(tag: string): Promise<Org>;
  plan(org: Org, desired: Catalog, opts?: PlanOptions): Promise<Plan>;
}

/** Starts the file's server in beforeAll (closed in afterAll); `server` is there once it has run. */
export function catalogFixture(): CatalogFixture {
  const fx = {
    newOrg: async (tag) => {
      const seller = await createSeller(fx.server, tag);
      return { seller, client: catalogClient(new PolarCore({ accessToken: seller.token, serverURL: fx.server.url })) };
    },
    plan: async (org, desired, opts = {}) => planCatalog(desired, await fetchServerCatalog(org.client), opts),
  } as CatalogFixture;
  beforeAll(async () => {
    fx.server = await startServer();
  });
  afterAll(async () => fx.server?.close());
  return fx;
}

export const HEADER = `# The catalog of a till organization: meters, custom fields, benefits, products and discounts.
# Entries are identified by their key (written to the server objects' metadata as till_catalog_key).
# Amounts are in minor units (1000 usd = $10.00). Check changes with \`till catalog plan -f <file>\`,
# then make them with \`till catalog apply -f <file>\`.
`;

/** Every kind of price, benefit, custom field and discount the catalog covers. */
export const FULL = `version: 1
meters:
  api-calls:
    name: API calls
    filter:
      conjunction: and
      clauses:
        - { property: name, operator: eq, value: api.call }
    aggregation: { func: count }
  tokens:
    name: Tokens
    unit: custom
    custom_label: tokens
    custom_multiplier: 1000
    filter:
      conjunction: or
      clauses:
        - { property: name, operator: eq, value: llm.prompt }
        - conjunction: and
          clauses:
            - { property: name, operator: eq, value: llm.completion }
            - { property: metadata.model, operator: like, value: gpt }
    aggregation: { func: sum, property: metadata.tokens }
custom_fields:
  company:
    type: text
    name: Company
    properties: { form_label: Your company, max_length: 100 }
  seats-wanted:
    type: number
    name: Seats wanted
    properties: { ge: 1, le: 500 }
  size:
    type: select
    name: Team size
    slug: team_size
    properties:
      options:
        - { value: small, label: "1-10" }
        - { value: large, label: "11+" }
  terms:
    type: checkbox
    name: Accept the terms
benefits:
  support:
    type: custom
    description: Priority support
    properties: { note: Write to support@example.com }
  license:
    type: license_keys
    description: A license key
    properties:
      prefix: PRO
      expires: { ttl: 1, timeframe: year }
      activations: { limit: 3, enable_customer_admin: true }
      limit_usage: 1000
  credits:
    type: meter_credit
    description: 10k API calls a month
    properties: { meter: api-calls, units: 10000, rollover: true }
products:
  starter:
    name: Starter
    description: Everything to get going.
    prices:
      - { amount_type: fixed, price_amount: 1900 }
      - { amount_type: fixed, price_currency: eur, price_amount: 1700 }
    benefits: [support]
    custom_fields:
      - { field: company, required: true }
      - terms
    metadata: { tier: 1, featured: true }
  pwyw:
    name: Pay what you want
    visibility: private
    prices:
      - { amount_type: custom, minimum_amount: 500, maximum_amount: 10000, preset_amount: 1500 }
  freebie:
    name: Free sample
    prices:
      - { amount_type: free }
  pro-monthly:
    name: Pro Monthly
    recurring_interval: month
    trial_interval: day
    trial_interval_count: 14
    prices:
      - { amount_type: fixed, price_amount: 1000 }
      - { amount_type: metered_unit, meter: api-calls, unit_amount: "0.05", cap_amount: 5000 }
      - { amount_type: metered_unit, meter: tokens, unit_amount: 0.001 }
    benefits: [support, credits, license]
    custom_fields:
      - { field: size, required: false }
  pro-yearly:
    name: Pro Yearly
    recurring_interval: year
    prices:
      - { amount_type: fixed, price_amount: 10000 }
    benefits: [license]
  team:
    name: Team
    recurring_interval: month
    recurring_interval_count: 3
    prices:
      - amount_type: seat_based
        seat_tiers:
          tiers:
            - { min_seats: 6, price_per_seat: 800 }
            - { min_seats: 1, max_seats: 5, price_per_seat: 1000 }
    custom_fields: [seats-wanted]
discounts:
  launch:
    name: Launch
    code: LAUNCH
    type: fixed
    amount: 500
    duration: once
    products: [starter, pro-monthly]
  loyal:
    name: Loyal customers
    type: percentage
    basis_points: 2500
    duration: repeating
    duration_in_months: 3
    metadata: { campaign: retention }
  summer:
    name: Summer sale
    code: SUMMER25
    type: percentage
    basis_points: 1000
    duration: forever
    max_redemptions: 100
    starts_at: 2030-06-01T00:00:00Z
    ends_at: "2030-09-01T00:00:00+02:00"
`;
