// The folder order (server/layers.ts; DESIGN.md, "Domains form layers, and imports point down"): the runtime
// import graph of server/ (tests/helpers/imports.ts: type-only imports left out, `import()` counted) folded to the
// units of server/layers.ts. A module imports only from its own unit or from one below it; every module under
// server/ is placed. There is no exceptions list.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ARCHITECTURE, withLayers } from "../../scripts/architecture-layers.js";
import { LAYERS } from "../../server/layers.js";
import { SERVER, runtimeGraph, serverPath, sources } from "../helpers/imports.js";
import { UNITS, unitOf } from "../helpers/folder-units.js";

describe("the folder order", () => {
  const graph = runtimeGraph();

  it("places every module under server/", () => {
    expect(graph.size).toBeGreaterThan(200);
    const unplaced = sources(SERVER).map(serverPath).filter((f) => unitOf(f) === undefined);
    expect(unplaced, "a module no unit of server/layers.ts places: add its folder to the order").toEqual([]);
  });

  it("names each unit once, and only folders and files that exist", () => {
    const paths = UNITS.map((u) => u.path);
    expect(new Set(paths).size).toBe(paths.length);
    const missing = paths.filter((p) => !p.includes("*") && !existsSync(path.join(SERVER, p)));
    expect(missing, "a unit of server/layers.ts that is no longer there").toEqual([]);
    expect(LAYERS.every((l) => l.units.length > 0)).toBe(true);
  });

  it("has every runtime import point down or stay in its unit (none up, none sideways)", () => {
    const against: string[] = [];
    for (const [file, targets] of graph) {
      const from = unitOf(serverPath(file));
      for (const target of targets) {
        const to = unitOf(serverPath(target));
        // ranks are distinct (a total order): another unit is either below or above
        if (!from || !to || from === to || to.rank < from.rank) continue;
        against.push(`${serverPath(file)} -> ${serverPath(target)} (up: ${from.path} is below ${to.path})`);
      }
    }
    expect(against, "an import against the order of server/layers.ts: move the code to the unit it belongs to").toEqual([]);
  });

  it("is the picture docs/architecture.md shows", () => {
    const text = readFileSync(ARCHITECTURE, "utf8");
    expect(text, "docs/architecture.md's layers differ from server/layers.ts: node --import tsx scripts/architecture-layers.ts").toBe(withLayers(text));
  });

  it("reads a folder, a file, billing's leaves and a route file as their units", () => {
    expect(unitOf("billing/orders/service.ts")?.path).toBe("billing/orders");
    expect(unitOf("billing/orders/routes.ts")?.path).toBe("billing/**/*routes.ts");
    expect(unitOf("billing/errors.ts")?.path).toBe("billing/*.ts");
    expect(unitOf("billing/index.ts")?.path).toBe("billing/index.ts");
    expect(unitOf("config.ts")?.path).toBe("config.ts");
    expect(unitOf("db/schema/index.ts")?.path).toBe("db");
    expect(unitOf("billing/no-such-domain/service.ts")).toBeUndefined();
    expect(unitOf("no-such-folder/x.ts")).toBeUndefined();
    const rank = (file: string) => unitOf(file)?.rank ?? -1;
    expect(rank("billing/customers/service.ts")).toBeLessThan(rank("billing/subscriptions/service.ts"));
    expect(rank("billing/subscriptions/service.ts")).toBeLessThan(rank("billing/renewal/run.ts"));
    expect(rank("billing/renewal/run.ts")).toBeLessThan(rank("billing/subscription-changes/lifecycle.ts"));
    expect(rank("billing/subscription-changes/lifecycle.ts")).toBeLessThan(rank("billing/subscriptions/routes.ts"));
  });
});
