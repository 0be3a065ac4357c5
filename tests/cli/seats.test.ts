// `till seats …` end to end: the CLI as a child process against the real server with an organization API key,
// on a real seat-based purchase. assign mails an invitation (read from the SMTP peer), list counts the free
// seats, resend makes a new invitation, revoke asks first and takes the seat back; bad input is one line
// with the right exit code and changes nothing.
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;
let product: Product;
let subscriptionId: string;

interface Seat {
  id: string;
  status: string;
  email: string | null;
  customer_id: string | null;
}

const run = (args: string[], extra: Partial<TillOptions> = {}): Promise<TillResult> => till(args, { ...cli, ...extra });
const ok = (r: TillResult) => {
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
};

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-seats");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
  product = await createProduct(seller, "seats");
  const checkout = await seller.sdk.checkouts.create({ products: [product.id], seats: 2 });
  await pay(server, checkout);
  const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  subscriptionId = order?.subscriptionId ?? "";
  await server.worker.start();
}, 120_000);
afterAll(async () => server?.close());

describe("till seats", () => {
  it("assigns (mailing the invitation), lists, resends and revokes", async () => {
    const email = uniqueBuyer("cli-seat");
    const assigned = ok(await run(["seats", "assign", "--subscription", subscriptionId, "--email", email, "--metadata", "team=core"]));
    expect(assigned.stdout).toMatch(new RegExp(`Assigned seat [0-9a-f-]{36} to ${email.replace(/[.]/g, "\\.")}: invitation mailed, valid until \\d{4}-\\d{2}-\\d{2}`));
    const first = await server.mailbox.waitFor(email, /seat/);
    expect(first.links.some((l) => l.includes("/seats/claim?token="))).toBe(true);

    const listed = ok(await run(["seats", "list", "--subscription", subscriptionId]));
    expect(listed.stderr).toContain("1 of 2 seats assigned, 1 free.");
    expect(listed.stdout).toContain(email);
    expect(listed.stdout).toContain("invited, until");
    const json = parseJson<{ seats: Seat[]; available_seats: number; total_seats: number }>(ok(await run(["seats", "list", "--subscription", subscriptionId, "--json"])).stdout);
    expect(json).toMatchObject({ available_seats: 1, total_seats: 2 });
    const seat = json.seats[0]!;
    expect(seat).toMatchObject({ status: "pending", email });

    const resent = ok(await run(["seats", "resend", seat.id]));
    expect(resent.stdout).toContain("the previous link no longer works");
    const second = await server.mailbox.waitFor(email, /seat/);
    expect(second.links.find((l) => l.includes("token="))).not.toBe(first.links.find((l) => l.includes("token=")));

    // revoking asks first; with nobody to ask it needs --yes and changes nothing
    const unasked = await run(["seats", "revoke", seat.id]);
    expect(unasked.exitCode).toBe(2);
    expect(unasked.stderr).toContain("--yes");
    expect(parseJson<{ seats: Seat[] }>(ok(await run(["seats", "list", "--subscription", subscriptionId, "--json"])).stdout).seats[0]?.status).toBe("pending");
    const revoked = parseJson<Seat>(ok(await run(["seats", "revoke", seat.id, "--yes", "--json"])).stdout);
    expect(revoked).toMatchObject({ id: seat.id, status: "revoked" });
  });

  it("claims at once for an existing customer with --claim-now, and refuses more seats than bought", async () => {
    const customer = await seller.sdk.customers.create({ email: uniqueBuyer("cli-known") });
    const claimed = parseJson<Seat>(ok(await run(["seats", "assign", "--subscription", subscriptionId, "--customer", customer.id, "--claim-now", "--json"])).stdout);
    expect(claimed).toMatchObject({ status: "claimed", customer_id: customer.id });
    ok(await run(["seats", "assign", "--subscription", subscriptionId, "--email", uniqueBuyer()]));
    const full = await run(["seats", "assign", "--subscription", subscriptionId, "--email", uniqueBuyer()]);
    expect(full.exitCode).toBe(2);
    expect(full.stderr).toContain("No seats available");
  });

  it("explains bad input in one line (exit 2) before any request", async () => {
    const neither = await run(["seats", "list"]);
    expect(neither.exitCode).toBe(2);
    expect(neither.stderr).toContain("give exactly one of --subscription or --order");
    const nobody = await run(["seats", "assign", "--subscription", subscriptionId]);
    expect(nobody.exitCode).toBe(2);
    expect(nobody.stderr).toContain("--email, --customer or --external-customer");
    const badId = await run(["seats", "revoke", "not-a-uuid", "--yes"]);
    expect(badId.exitCode).toBe(2);
    const help = ok(await run(["seats", "--help"]));
    expect(help.stdout).toContain("till seats assign --subscription <id> --email ada@example.com");
  });
});
