// Runtime import cycles under server/ (DESIGN.md, "Domains form layers, and imports point down"): the import
// graph of every server/ module, read with TypeScript's parser; `import type`, imports whose every name is
// type-only and `export type … from` are left out (they vanish at runtime), `import()` counts (a cycle hidden
// behind one is still a cycle). Its strongly connected components are the cycles.
//
// Billing's layers (docs/architecture.md) keep it so: the test asks for no cycle at all; there is no exceptions
// list.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SERVER = fileURLToPath(new URL("../../server", import.meta.url));

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      if (name !== "migrations") sources(file, out);
    } else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(file);
  }
  return out;
}

/** The server/ modules a module needs at runtime (`text`: its source, read from the file unless given). */
function runtimeImports(file: string, text = readFileSync(file, "utf8")): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const add = (specifier: string) => {
    if (!specifier.startsWith(".")) return;
    const base = path.resolve(path.dirname(file), specifier).replace(/\.js$/, "");
    const target = [`${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")].find((f) => existsSync(f));
    if (target?.startsWith(SERVER)) found.push(target);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly = clause !== undefined && (clause.isTypeOnly || (!clause.name && named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly)));
      if (!typeOnly) add(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      const typeOnly = node.isTypeOnly || (named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly));
      if (!typeOnly) add(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) add(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Tarjan's strongly connected components of more than one module (or a module importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component);
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return found;
}

describe("server/ imports", () => {
  it("form no runtime cycle", () => {
    const graph = new Map(sources(SERVER).map((file) => [file, runtimeImports(file)]));
    expect(graph.size).toBeGreaterThan(200);
    const found = cycles(graph).map((c) => c.map((f) => path.relative(SERVER, f).split(path.sep).join("/")).sort());
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
      'export async function later() { return import("./subscriptions/lifecycle.js"); }',
    ].join("\n");
    const found = runtimeImports(path.join(SERVER, "billing/fixture.ts"), fixture).map((f) => path.relative(SERVER, f).split(path.sep).join("/"));
    expect(found.sort()).toEqual(["billing/http.ts", "billing/subscriptions/lifecycle.ts"]);
    const typeOnly = readFileSync(path.join(SERVER, "billing/processor-connections/routes.ts"), "utf8");
    expect(typeOnly).toContain('import type { BillingDeps } from "../deps.js"');
    expect(runtimeImports(path.join(SERVER, "billing/processor-connections/routes.ts")).some((f) => f.endsWith("billing/deps.ts"))).toBe(false);
  });
});
