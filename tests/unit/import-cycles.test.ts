// Runtime import cycles under server/ (DESIGN.md, "Domains form layers, and imports point down"): the import
// graph of every server/ module, read with TypeScript's parser; `import type`, imports whose every name is
// type-only and `export type … from` are left out (they vanish at runtime), `import()` counts (a cycle hidden
// behind one is still a cycle). Its strongly connected components are the cycles.
//
// Billing's layers (docs/architecture.md) keep it so: the test asks for no cycle at all; there is no exceptions
// list.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SERVER, cycles, runtimeGraph, runtimeImports, serverPath } from "../helpers/imports.js";

describe("server/ imports", () => {
  it("form no runtime cycle", () => {
    const graph = runtimeGraph();
    expect(graph.size).toBeGreaterThan(200);
    const found = cycles(graph).map((c) => c.map(serverPath).sort());
    expect(found, "a runtime import cycle: make the lower module not import the higher one (DESIGN.md)").toEqual([]);
  });

  it("finds a two-module cycle; an import() and an `export … from` are edges, an `import type` is not", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["a"]],
      ["c", []],
    ]);
    expect(cycles(graph)).toEqual([["b", "a"]]);
    const fixture = [
      'import type { Db } from "../db/client.js";',
      'import { type Queryable } from "../db/client.js";',
      'export { ApiError } from "./http.js";',
      'export type { OutboxEvent } from "../db/outbox.js";',
      'export async function later() { return import("./subscription-changes/lifecycle.js"); }',
    ].join("\n");
    const found = runtimeImports(path.join(SERVER, "billing/fixture.ts"), fixture).map(serverPath);
    expect(found.sort()).toEqual(["billing/http.ts", "billing/subscription-changes/lifecycle.ts"]);
    const typeOnly = readFileSync(path.join(SERVER, "billing/processor-connections/routes.ts"), "utf8");
    expect(typeOnly).toContain('import type { BillingDeps } from "../deps.js"');
    expect(runtimeImports(path.join(SERVER, "billing/processor-connections/routes.ts")).some((f) => f.endsWith("billing/deps.ts"))).toBe(false);
  });
});
