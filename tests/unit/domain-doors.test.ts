// Billing domains read each other through the other domain's service.ts, wire.ts or a named door (input shapes,
// late.ts), never its repository.ts or *-repository.ts (DESIGN.md, "Domains form layers"; docs/architecture.md):
// no module under server/billing/<domain>/ imports another domain's repository, type-only imports included; and
// a service.ts re-exports nothing (`export … from`): a name is imported from the module that defines it, so a
// service's exports are the domain's own operations.
// There is no exceptions list.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const BILLING = fileURLToPath(new URL("../../server/billing", import.meta.url));

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) sources(file, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(file);
  }
  return out;
}

/** The billing domain (top folder under server/billing) a file belongs to; null for billing's own leaves. */
const domainOf = (file: string) => {
  const parts = path.relative(BILLING, file).split(path.sep);
  return parts.length > 1 ? parts[0]! : null;
};

function crossRepositoryImports(): string[] {
  const found: string[] = [];
  for (const file of sources(BILLING)) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) || !statement.moduleSpecifier) continue;
      const specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
      if (!/[/-]repository\.js$/.test(specifier)) continue;
      const target = path.resolve(path.dirname(file), specifier);
      if (path.relative(BILLING, target).startsWith("..")) continue;
      if (domainOf(target) !== domainOf(file)) found.push(`${path.relative(BILLING, file)} imports ${path.relative(BILLING, target)}`);
    }
  }
  return found;
}

function serviceReExports(): string[] {
  const found: string[] = [];
  for (const file of sources(BILLING).filter((f) => path.basename(f) === "service.ts")) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
        found.push(`${path.relative(BILLING, file)}: ${statement.getText(source).replace(/\s+/g, " ")}`);
      }
    }
  }
  return found;
}

describe("billing domains", () => {
  it("never import another domain's repository", () => {
    expect(crossRepositoryImports()).toEqual([]);
  });

  it("re-export nothing from a service.ts", () => {
    expect(serviceReExports()).toEqual([]);
  });
});
