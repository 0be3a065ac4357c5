// Metrics across time zones through both SDKs: each order counted in its local day and month around a month's
// edge. The 13-month scenario, limits, dashboards and tenancy: metrics.test.ts.
import { RFCDate } from "@polar-sh/sdk/types/rfcdate.js";
import { RFCDate as RFCDate049 } from "polar-sdk-049/types/rfcdate.js";
import { describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { pay } from "../helpers/checkout.js";
import { createSeller, sdk049For, sdkFor } from "../helpers/seller.js";
import { metricsFixture } from "./metrics-fixtures.js";

const fx = metricsFixture();

describe("time zones", () => {
  it("puts each order in its local day and month: Europe/Berlin and America/Los_Angeles around April 1st, 2028", async () => {
    const other = await createSeller(fx.server, "metrics-tz");
    const tzKey = await other.createSandboxKey();
    const tzSdk = sdkFor(fx.server, tzKey);
    const tzRaw = (method: string, path: string, body?: unknown) => rawRequest(fx.server.url, tzKey, method, path, body);
    const ebook = await tzSdk.products.create({ name: "Ebook", prices: [{ amountType: "fixed", priceAmount: 700, priceCurrency: "usd" }] });
    const buyAt = async (iso: string, email: string) => {
      expect((await tzRaw("POST", "/v1/test-clock/advance", { to: iso })).status).toBe(200);
      const checkout = await tzSdk.checkouts.create({ products: [ebook.id] });
      await pay(fx.server, checkout, { customerEmail: email });
    };
    // 22:30Z on March 31st: April 1st 00:30 in Berlin (CEST), March 31st 15:30 in Los Angeles (PDT)
    await buyAt("2028-03-31T22:30:00Z", "tz1@example.com");
    // 06:30Z on April 1st: 08:30 in Berlin, still March 31st (23:30) in Los Angeles
    await buyAt("2028-04-01T06:30:00Z", "tz2@example.com");
    // 07:30Z: April 1st 00:30 in Los Angeles
    await buyAt("2028-04-01T07:30:00Z", "tz3@example.com");

    const byDay = async (timezone: string) =>
      tzSdk.metrics.get({ startDate: new RFCDate("2028-03-31"), endDate: new RFCDate("2028-04-01"), interval: "day", timezone, metrics: ["orders", "revenue"] });
    const utc = await byDay("UTC");
    expect(utc.periods.map((p) => [p.timestamp.toISOString(), p.orders])).toEqual([
      ["2028-03-31T00:00:00.000Z", 1],
      ["2028-04-01T00:00:00.000Z", 2],
    ]);
    const berlin = await byDay("Europe/Berlin");
    expect(berlin.periods.map((p) => [p.timestamp.toISOString(), p.orders, p.revenue])).toEqual([
      ["2028-03-30T22:00:00.000Z", 0, 0],
      ["2028-03-31T22:00:00.000Z", 3, 2100],
    ]);
    const la = await byDay("America/Los_Angeles");
    expect(la.periods.map((p) => [p.timestamp.toISOString(), p.orders, p.revenue])).toEqual([
      ["2028-03-31T07:00:00.000Z", 2, 1400],
      ["2028-04-01T07:00:00.000Z", 1, 700],
    ]);
    // months across the change to summer time: March starts in CET (UTC+1) in Berlin, April in CEST (UTC+2)
    const months = async (timezone: string) =>
      sdk049For(fx.server, tzKey).metrics.get({ startDate: new RFCDate049("2028-03-01"), endDate: new RFCDate049("2028-04-30"), interval: "month", timezone, metrics: ["orders"] });
    expect((await months("Europe/Berlin")).periods.map((p) => [p.timestamp.toISOString(), p.orders])).toEqual([
      ["2028-02-29T23:00:00.000Z", 0],
      ["2028-03-31T22:00:00.000Z", 3],
    ]);
    expect((await months("America/Los_Angeles")).periods.map((p) => [p.timestamp.toISOString(), p.orders])).toEqual([
      ["2028-03-01T08:00:00.000Z", 2],
      ["2028-04-01T07:00:00.000Z", 1],
    ]);
    // the 23-hour day (Berlin, March 26th, 2028) is one period; hours follow the zone's offset
    const dst = await tzSdk.metrics.get({ startDate: new RFCDate("2028-03-25"), endDate: new RFCDate("2028-03-27"), interval: "day", timezone: "Europe/Berlin", metrics: ["orders"] });
    expect(dst.periods.map((p) => p.timestamp.toISOString())).toEqual(["2028-03-24T23:00:00.000Z", "2028-03-25T23:00:00.000Z", "2028-03-26T22:00:00.000Z"]);
    const hours = await tzSdk.metrics.get({ startDate: new RFCDate("2028-04-01"), endDate: new RFCDate("2028-04-01"), interval: "hour", timezone: "America/Los_Angeles", metrics: ["orders"] });
    expect(hours.periods).toHaveLength(24);
    expect(hours.periods[0]?.timestamp.toISOString()).toBe("2028-04-01T07:00:00.000Z");
    expect(hours.periods[0]?.orders).toBe(1);
    expect(hours.totals.orders).toBe(1);
  }, 120_000);
});
