// `till clock`, end to end: the CLI as a child process against the real server with a sandbox API key — the
// sandbox's now, an advance that renews a monthly subscription on the way, bad durations refused before any
// request (exit 2), a live key refused by the server, and the help text.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addInterval } from "../../server/billing/subscriptions/period.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;
let sandboxKey: string;

const run = (args: string[], env: Record<string, string> = {}): Promise<TillResult> => till(args, { ...cli, env: { ...cli.env, ...env } });

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-clock");
  sandboxKey = await seller.createSandboxKey();
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: sandboxKey, TILL_SERVER: server.url } };
});
afterAll(async () => server?.close());

describe("till clock", () => {
  it("tells the sandbox's now and advances it, renewing what comes due on the way", async () => {
    const status = await run(["clock"]);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Sandbox time: \d{4}-\d\d-\d\dT.*Z \(on the wall clock\)\.\n$/);

    // a monthly subscription in the sandbox
    const sdk = sdkFor(server, sandboxKey);
    const sandboxSeller = { ...seller, sdk } as Seller;
    const product = await createProduct(sandboxSeller, "monthly");
    const checkout = await sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout);
    const [order] = (await sdk.orders.list({ checkoutId: checkout.id })).result.items;

    const advanced = await run(["clock", "advance", "31d", "--json"]);
    expect(advanced.exitCode, advanced.stderr).toBe(0);
    const clock = parseJson<{ now: string; from: string; renewals: number; offset_ms: number }>(advanced.stdout);
    expect(clock.renewals).toBe(1);
    expect(Date.parse(clock.now) - Date.parse(clock.from)).toBeGreaterThanOrEqual(31 * 86_400_000);
    const orders = (await sdk.orders.list({ subscriptionId: order!.subscriptionId!, limit: 10 })).result.items;
    expect(orders.map((o) => o.billingReason).sort()).toEqual(["subscription_create", "subscription_cycle"]);

    const text = await run(["clock", "advance", "1d12h"]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Sandbox time: .*Z \(was .*Z\); 0 renewals on the way\.\n$/);
    const after = await run(["clock", "status"]);
    expect(after.stdout).toMatch(/\(32d 12h 0m ahead of the wall clock\)/);

    // months and years by the calendar, as the subscription's periods are counted
    for (const [by, months] of [["1mo", 1], ["1y", 12]] as const) {
      const r = await run(["clock", "advance", by, "--json"]);
      expect(r.exitCode, r.stderr).toBe(0);
      const moved = parseJson<{ now: string; from: string }>(r.stdout);
      // (the advance ends a few milliseconds past its target: time passed while it ran)
      const late = Date.parse(moved.now) - addInterval(new Date(moved.from), "month", months).getTime();
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(5_000);
    }
  });

  it("refuses a malformed duration before any request (exit 2), and the server refuses live time (exit 1)", async () => {
    const bad = await run(["clock", "advance", "soon"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("expected a duration such as 31d");
    const none = await run(["clock", "advance"]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain("give either a duration");

    const live = await run(["clock", "advance", "1d", "--live"], { TILL_API_KEY: await seller.createKey() });
    expect(live.exitCode).toBe(1);
    expect(live.stderr).toMatch(/exists only in the sandbox/);
  });

  it("--help explains the clock", async () => {
    const help = await run(["clock", "--help"]);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain("till clock advance 31d");
    expect(help.stdout).toContain("at most 24 periods");
    const sub = await run(["clock", "advance", "--help"]);
    expect(sub.stdout).toContain("--to <date-time>");
    expect(sub.stdout).toContain("till clock advance 1mo");
  });
});
