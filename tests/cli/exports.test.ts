// `till customers|orders|subscriptions export`: the server's CSV on stdout or in a file (--output), the count on
// stderr, a progress line on a terminal (run under `script`), the --product filter, and a key without the
// read scope refused with exit 4 before anything is written.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProduct, pay } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { BIN, tempConfigDir, till, type TillOptions } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;
let oneTime: Product;
let monthly: Product;

const lines = (csv: string) => csv.split("\r\n").filter((l) => l !== "");

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-export");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
  [oneTime, monthly] = await Promise.all([createProduct(seller, "fixed"), createProduct(seller, "monthly")]);
  for (const product of [oneTime, monthly]) await pay(server, await seller.sdk.checkouts.create({ products: [product.id] }));
}, 120_000);
afterAll(async () => server?.close());

describe("till … export", () => {
  it("orders export writes the CSV on stdout and the count on stderr; --product filters", async () => {
    const all = await till(["orders", "export"], cli);
    expect(all.exitCode, all.stderr).toBe(0);
    const rows = lines(all.stdout);
    expect(rows[0]).toMatch(/^id,created_at,invoice_number,status,/);
    expect(rows).toHaveLength(3);
    expect(all.stderr).toContain("Exported 2 orders");
    const one = await till(["orders", "export", "--product", monthly.id], cli);
    expect(lines(one.stdout)).toHaveLength(2);
    expect(one.stdout).toContain(monthly.name);
    expect(one.stderr).toContain("Exported 1 order ");
  });

  it("customers export --output writes the file and nothing on stdout", async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "till-export-")), "customers.csv");
    const r = await till(["customers", "export", "--output", file], cli);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    expect(lines(readFileSync(file, "utf8"))).toHaveLength(3);
    expect(r.stderr).toContain(`Exported 2 customers to ${file}`);
  });

  it("shows a progress line on a terminal", async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "till-export-")), "subscriptions.csv");
    const r = await execa("script", ["-qec", `node ${BIN} subscriptions export --output ${file} --no-color`, "/dev/null"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: os.tmpdir(), TILL_CONFIG_DIR: cli.configDir, ...cli.env },
      extendEnv: false,
      reject: false,
      timeout: 60_000,
    });
    expect(r.exitCode, String(r.stdout)).toBe(0);
    expect(String(r.stdout)).toContain("Exporting subscriptions…");
    expect(String(r.stdout)).toContain("Exported 1 subscription to");
    expect(lines(readFileSync(file, "utf8"))).toHaveLength(2);
  });

  it("a key without the scope is exit 4 naming it, and writes no file; a bad id is exit 2", async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "till-export-")), "orders.csv");
    const key = await seller.createKey({ products: ["read"] });
    const r = await till(["orders", "export", "--output", file], { ...cli, env: { ...cli.env, TILL_API_KEY: key } });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain("orders:read");
    expect(existsSync(file)).toBe(false);
    const bad = await till(["orders", "export", "--product", "nope"], cli);
    expect(bad.exitCode).toBe(2);
  });
});
