// `till keys list` reads the keys a page at a time from the server (GET /api/auth/api-key/page, cut in the
// database), with --limit, --page and --all like the other list commands, and --side for one side only.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;

const run = (args: string[]): Promise<TillResult> => till(args, cli);
const ok = (r: TillResult) => {
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
};
type Listed = Array<{ id: string; name: string | null; start: string | null; key?: string }>;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-keys-list");
  const configDir = tempConfigDir();
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const profile = {
    server: server.url,
    token: seller.token,
    user: { id: seller.user.id, email: seller.user.email, name: "Test User" },
    organization: { id: seller.organizationId, name: "Keys", slug: seller.slug },
  };
  writeFileSync(path.join(configDir, "config.json"), JSON.stringify({ profiles: { default: profile } }), { mode: 0o600 });
  cli = { configDir, env: {} };
  await seller.createSandboxKey();
  for (let i = 0; i < 4; i++) await seller.createKey();
});
afterAll(async () => {
  await server?.close();
});

describe("till keys list", () => {
  it("shows one page of keys, newest first, with --limit and --page; --all reads every page; --side one side", async () => {
    const every = parseJson<Listed>(ok(await run(["keys", "list", "--all", "--json"])).stdout);
    expect(every.length).toBeGreaterThanOrEqual(5);
    expect(new Set(every.map((k) => k.id)).size).toBe(every.length);
    expect(every.every((k) => k.key === undefined)).toBe(true);

    const first = await run(["keys", "list", "--limit", "2"]);
    ok(first);
    expect(first.stdout.trim().split("\n")).toHaveLength(2); // piped: two rows, no header
    expect(first.stderr).toContain(`Showing 1–2 of ${every.length} keys: --page 2 for more, --all for every one.`);
    const page1 = parseJson<Listed>(ok(await run(["keys", "list", "--limit", "2", "--json"])).stdout);
    const page2 = parseJson<Listed>(ok(await run(["keys", "list", "--limit", "2", "--page", "2", "--json"])).stdout);
    expect(page1.map((k) => k.id)).toEqual(every.slice(0, 2).map((k) => k.id));
    expect(page2.map((k) => k.id)).toEqual(every.slice(2, 4).map((k) => k.id));
    // the default page is ten keys
    expect(parseJson<Listed>(ok(await run(["keys", "list", "--json"])).stdout)).toHaveLength(Math.min(10, every.length));

    const sandbox = parseJson<Listed>(ok(await run(["keys", "list", "--side", "sandbox", "--json"])).stdout);
    expect(sandbox.length).toBeGreaterThanOrEqual(1);
    expect(sandbox.every((k) => k.start?.startsWith("till_test_"))).toBe(true);
    const live = parseJson<Listed>(ok(await run(["keys", "list", "--side", "live", "--all", "--json"])).stdout);
    expect(live.length + sandbox.length).toBe(every.length);
    expect(live.some((k) => k.start?.startsWith("till_test_"))).toBe(false);
  }, 120_000);

  it("refuses --all with --page, and a side it does not know", async () => {
    const both = await run(["keys", "list", "--all", "--page", "2"]);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain("--all");
    const side = await run(["keys", "list", "--side", "both"]);
    expect(side.exitCode).toBe(2);
    expect(side.stderr).toContain("expected live or sandbox");
  }, 60_000);
});
