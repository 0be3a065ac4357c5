// The runtime import graph of server/, read with TypeScript's parser, for the house tests (import cycles, folder
// order, doors): `import type`, imports whose every name is type-only and `export type … from` are left out (they
// vanish at runtime); `import()` counts (an edge hidden behind one is still an edge).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const SERVER = fileURLToPath(new URL("../../server", import.meta.url));

/** Every .ts/.tsx module under `dir` (migrations left out: SQL and snapshots). */
export function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      if (name !== "migrations") sources(file, out);
    } else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(file);
  }
  return out;
}

/** A server/ file's path relative to server/, with forward slashes. */
export const serverPath = (file: string) => path.relative(SERVER, file).split(path.sep).join("/");

/**
 * The server/ modules a module needs at runtime (`text`: its source, read from the file unless given); with
 * `types`, also those it imports types from.
 */
export function runtimeImports(file: string, text = readFileSync(file, "utf8"), types = false): string[] {
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
      if (types || !typeOnly) add(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      const typeOnly = node.isTypeOnly || (named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly));
      if (types || !typeOnly) add(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) add(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every server/ module and the modules it needs at runtime. */
export const runtimeGraph = (): Map<string, string[]> => new Map(sources(SERVER).map((file) => [file, runtimeImports(file)]));

/** Tarjan's strongly connected components of more than one node (or a node importing itself). */
export function cycles(graph: Map<string, string[]>): string[][] {
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
