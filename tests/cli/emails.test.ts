// `till emails preview`, end to end: the CLI as a child process against the real server with an organization
// API key; the preview is the organization's (its name and logo), written to a file or printed.
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;
const LOGO = "https://cdn.example.com/preview-logo.png";

const run = (args: string[]): Promise<TillResult> => till(args, cli);

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-emails");
  await rawRequest(server.url, seller.token, "PATCH", `/v1/organizations/${seller.organizationId}`, { name: "Preview Shop", avatar_url: LOGO });
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
});
afterAll(async () => server?.close());

describe("till emails preview", () => {
  it("--out writes the HTML of the organization's email; the subject goes to stderr", async () => {
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), "till-preview-")), "receipt.html");
    const r = await run(["emails", "preview", "order_confirmation", "--out", out]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`Wrote ${out}`);
    expect(r.stderr).toContain("Subject: Your Preview Shop receipt");
    const html = readFileSync(out, "utf8");
    expect(html).toMatch(/^<!DOCTYPE html/);
    expect(html).toContain("Preview Shop");
    expect(html).toContain(`src="${LOGO}"`);
    expect(html).toContain("Thank you for your order");
  });

  it("--text prints the plain-text part; --json the subject, HTML and text", async () => {
    const text = await run(["emails", "preview", "subscription-past-due", "--text"]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/your payment failed/i);
    expect(text.stdout).toContain("We could not charge $21.60");
    expect(text.stdout).toContain(`${server.url}/portal?organization=${seller.slug}`);
    // no markup: the one "<" opens the portal's address, in angle brackets
    expect(text.stdout).not.toMatch(/<(?!https?:\/\/)/);
    expect(text.stdout).toContain(`<${server.url}/portal?organization=${seller.slug}>`);

    const json = await run(["emails", "preview", "subscription_revoked", "--json"]);
    expect(json.exitCode, json.stderr).toBe(0);
    const body = parseJson<{ type: string; subject: string; html: string; text: string }>(json.stdout);
    expect(body.type).toBe("subscription_revoked");
    expect(body.subject).toBe("Your Pro plan subscription has ended");
    expect(body.html).toContain("Preview Shop");
  });

  it("an unknown type is a usage error before any request", async () => {
    const r = await run(["emails", "preview", "newsletter"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("expected one of order_confirmation");
  });
});
