// The alerting rules operators load (ops/prometheus/till-rules.yml) are accepted by Prometheus' own checker, and
// every till_ series they name is one the server declares (server/metrics/).
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const rules = path.join(root, "ops/prometheus/till-rules.yml");

describe("ops/prometheus/till-rules.yml", () => {
  it("passes promtool check rules", () => {
    const out = execFileSync("promtool", ["check", "rules", rules], { encoding: "utf8" });
    expect(out).toContain("SUCCESS");
  });

  it("names only series the server declares", () => {
    const declared = readdirSync(path.join(root, "server/metrics"))
      .map((f) => readFileSync(path.join(root, "server/metrics", f), "utf8"))
      .join("\n");
    const named = new Set(readFileSync(rules, "utf8").match(/\btill_[a-z_]+/g) ?? []);
    expect(named.size).toBeGreaterThan(5);
    for (const name of named) expect(declared).toContain(`"${name.replace(/_(bucket|count|sum)$/, "")}"`);
  });
});

describe("Stripe's paths as a label", () => {
  it("keep the resource and its actions, never an id", async () => {
    const { stripeResource } = await import("../../server/metrics/registry.js");
    expect(stripeResource("/v1/payment_intents/pi_3NabcDEF123/confirm")).toBe("/v1/payment_intents/:id/confirm");
    expect(stripeResource("/v1/customers/cus_abc/payment_methods/pm_1X?limit=3")).toBe("/v1/customers/:id/payment_methods/:id");
    expect(stripeResource("/v1/refunds")).toBe("/v1/refunds");
    expect(stripeResource("/v1/customers/someone@example.com")).toBe("/v1/customers/:id");
  });
});
