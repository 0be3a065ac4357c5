// The seller's home in a real Chromium against the real server: each figure (MRR, revenue, new and churned
// subscriptions, active subscriptions, churn rate) and the period before's equal GET /v1/metrics/ for the dates the
// page names, a custom range kept in the address, the comparison turned off (and not offered for all time), the
// CSV export's content, the failed payments linking to their orders, and the sandbox's range ending on its test
// clock; axe at a desktop's width and a phone's.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { formatMoney } from "../../shared/money.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { checkPage, useSellerPages } from "../helpers/seller-browser.js";

const pages = useSellerPages("home", { timezoneId: "UTC", acceptDownloads: true });
const open = (width: number) => pages.open(width);

const SLUGS = ["monthly_recurring_revenue", "revenue", "new_subscriptions", "churned_subscriptions", "active_subscriptions", "active_customers", "churn_rate"] as const;
type Slug = (typeof SLUGS)[number];
type Answer = { totals: Record<Slug, number>; periods: Array<Record<string, number | string>> };

async function metrics(token: string, start: string, end: string, interval: string, timezone = "UTC"): Promise<Answer> {
  const q = new URLSearchParams({ start_date: start, end_date: end, interval, timezone });
  for (const s of SLUGS) q.append("metrics", s);
  const res = await rawRequest(pages.server.url, token, "GET", `/v1/metrics/?${q}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Answer;
}

function shown(slug: Slug, v: number): string {
  if (slug === "churn_rate") return `${(v * 100).toFixed(1)} %`;
  if (slug.endsWith("revenue")) return formatMoney(Math.round(v), "usd");
  return Math.round(v).toLocaleString("en");
}

const text = async (page: Page, id: string) => (await page.getByTestId(id).innerText()).trim();
const datesOf = async (page: Page, id: string) => (await text(page, id)).split(" to ") as [string, string];

/** Every card's figure and the period before's equal the API's totals for the dates the page shows. */
async function expectFigures(page: Page, token: string, interval: string, compare = true, zone = "UTC"): Promise<void> {
  await page.getByTestId("range-current").waitFor();
  const [start, end] = await datesOf(page, "range-current");
  const now = await metrics(token, start, end, interval, zone);
  for (const s of SLUGS) await expect.poll(() => text(page, s), { message: s }).toBe(shown(s, now.totals[s]));
  if (!compare) return;
  const [pStart, pEnd] = await datesOf(page, "range-previous");
  const before = await metrics(token, pStart, pEnd, interval);
  for (const s of SLUGS) expect(await text(page, `${s}-previous`), `${s} before`).toBe(shown(s, before.totals[s]));
}

describe("the seller's home", () => {
  it("desktop: the figures are the API's, a custom range, no comparison, the CSV, the failed payments", async () => {
    const { seller, server } = pages;
    // a paying subscription, and one whose renewal's charge fails (a card that attaches but declines charges)
    const monthly = await createProduct(seller, "monthly");
    await pay(server, await seller.sdk.checkouts.create({ products: [monthly.id] }));
    const trial = await createProduct(seller, "trial");
    await pay(server, await seller.sdk.checkouts.create({ products: [trial.id] }), { customerEmail: uniqueBuyer("home") }, "4000 0000 0000 0341");
    const [sub] = (await seller.sdk.subscriptions.list({ productId: trial.id })).result.items;
    const renewed = await rawRequest(server.url, seller.token, "POST", `/v1/subscriptions/${sub!.id}/renew`, { current_period_start: sub!.currentPeriodStart.toISOString() });
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    const orders = (await seller.sdk.orders.list({ subscriptionId: sub!.id, sorting: ["-created_at"] })).result.items;

    const page = await open(1280);
    await page.goto("/?mode=live");
    await expectFigures(page, seller.token, "month");
    expect(await text(page, "revenue")).not.toBe(shown("revenue", 0));
    expect(await page.getByRole("link", { name: "Last 12 months" }).getAttribute("aria-current")).toBe("true");
    expect(await page.getByRole("link", { name: "Home" }).getAttribute("aria-current")).toBe("page");
    // headings and figures in the text's colour, not the hints' grey
    const colours = await page.evaluate(() => ["h1", ".metric h2", ".metric-value", ".failed-payments h2"].map((s) => getComputedStyle(document.querySelector(s)!).color));
    expect(new Set(colours).size, colours.join(" ")).toBe(1);

    // the failed renewal, linking to its order
    const failed = page.getByRole("region", { name: "Failed payments" });
    await failed.getByRole("link", { name: `Order ${orders[0]!.id.slice(0, 8)}` }).waitFor();
    expect(await failed.getByRole("link").first().getAttribute("href")).toMatch(new RegExp(`^/orders/${orders[0]!.id}\\?`));
    await checkPage(page, "desktop-home");

    // the CSV is what is shown: a row per period, the totals last, the period before beside
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
    const csv = readFileSync((await download.path())!, "utf8").trimEnd().split("\r\n");
    expect(csv[0]).toBe(`period,${SLUGS.join(",")},previous_period,${SLUGS.map((s) => `previous_${s}`).join(",")}`);
    const [start, end] = await datesOf(page, "range-current");
    const now = await metrics(seller.token, start, end, "month");
    expect(csv).toHaveLength(now.periods.length + 2);
    expect(csv[1]!.split(",").slice(0, SLUGS.length + 1)).toEqual([String(now.periods[0]!.timestamp), ...SLUGS.map((s) => String(now.periods[0]![s]))]);
    expect(csv.at(-1)!.split(",").slice(0, SLUGS.length + 1)).toEqual(["total", ...SLUGS.map((s) => String(now.totals[s]))]);

    // a custom range: in the address, by day under 60 days, its period before as long
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel("From", { exact: true }).fill(from);
    await page.getByLabel("To", { exact: true }).fill(today);
    await page.getByRole("button", { name: "Show", exact: true }).click();
    await page.waitForURL(new RegExp(`range=custom&from=${from}&to=${today}`));
    expect(await text(page, "range-current")).toBe(`${from} to ${today}`);
    const daysBefore = (n: number) => new Date(Date.parse(from) - n * 86_400_000).toISOString().slice(0, 10);
    expect(await datesOf(page, "range-previous")).toEqual([daysBefore(21), daysBefore(1)]);
    await expectFigures(page, seller.token, "day");

    // no comparison: kept in the address, the period before gone, and so through a reload
    await page.getByLabel("Compare with the period before").uncheck();
    await page.waitForURL(/compare=off/);
    await page.getByTestId("range-previous").waitFor({ state: "detached" });
    await page.reload();
    await expectFigures(page, seller.token, "day", false);
    expect(await page.getByTestId("revenue-previous").count()).toBe(0);
    expect(pages.problems).toEqual([]);
  });

  it("desktop: all time, in the organization's time zone, with its active customers", async () => {
    const { seller, server } = pages;
    // a zone a day ahead of the browser's (UTC) for half the day: the range ends on the organization's today
    const zone = "Pacific/Kiritimati";
    const set = await rawRequest(server.url, seller.token, "PATCH", `/v1/organizations/${seller.organizationId}`, { default_timezone: zone });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((set.body as { default_timezone: string }).default_timezone).toBe(zone);
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
    const page = await open(1280);
    await page.goto("/?mode=live&range=all");
    await page.getByTestId("range-current").waitFor();
    expect(await page.getByRole("link", { name: "All time" }).getAttribute("aria-current")).toBe("true");
    const [start, end] = await datesOf(page, "range-current");
    // from the organization's first day (made by this file's seller today; a week at least) to its today; nothing
    // before to compare
    const weekBefore = new Date(Date.parse(`${today}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10);
    expect([start, end]).toEqual([weekBefore, today]);
    expect(await text(page, "range-zone")).toBe(`· days in ${zone}`);
    expect(await page.getByTestId("range-previous").count()).toBe(0);
    // nothing to compare with: no switch for it, and the dates say why
    expect(await page.getByLabel("Compare with the period before").count()).toBe(0);
    expect(await text(page, "range-dates")).toContain("from your first day: nothing before it to compare with");
    await expectFigures(page, seller.token, "day", false, zone);
    expect(Number(await text(page, "active_customers"))).toBeGreaterThan(0);
    await checkPage(page, "desktop-home-all-time");
    const cleared = await rawRequest(server.url, seller.token, "PATCH", `/v1/organizations/${seller.organizationId}`, { default_timezone: null });
    expect(cleared.status).toBe(200);
    expect(pages.problems).toEqual([]);
  });

  it("phone: the sandbox's range ends on its test clock; axe", async () => {
    const key = await pages.seller.createSandboxKey();
    const to = new Date(Date.now() + 45 * 86_400_000).toISOString();
    const moved = await rawRequest(pages.server.url, key, "POST", "/v1/test-clock/advance", { to });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const page = await open(390);
    await page.goto("/?mode=sandbox&range=30d");
    await page.getByTestId("range-current").waitFor();
    expect((await datesOf(page, "range-current"))[1]).toBe(to.slice(0, 10));
    expect(await page.getByTestId("range-dates").innerText()).toContain(`sandbox clock: ${to.slice(0, 10)}`);
    await expectFigures(page, key, "day");
    // the phone's frame is compact: the bar and the banner together under 100 px
    const frame = await page.evaluate(() => {
      const edge = (s: string, side: "top" | "bottom") => document.querySelector(s)?.getBoundingClientRect()[side] ?? 0;
      return edge(".sandbox-banner", "bottom") - edge(".seller-bar", "top");
    });
    expect(frame).toBeLessThan(100);
    await checkPage(page, "phone-home-sandbox");
    expect(pages.problems).toEqual([]);
  });
});
