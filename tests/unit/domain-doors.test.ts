// Billing domains read each other through the other domain's doors (DESIGN.md, "Domains form layers";
// docs/architecture.md): a module that imports from another unit of server/layers.ts imports one of the doors that
// unit declares there (its service.ts, wire.ts, errors.ts, jobs.ts and the named modules listed; any module of a
// platform toolkit), type-only imports included; a route file counts as its domain folder's. No module under
// server/billing/<domain>/ imports another domain's repository.ts or *-repository.ts; and a service.ts re-exports
// nothing (`export … from`): a name is imported from the module that defines it, so a service's exports are the
// domain's own operations.
// There is no exceptions list.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { SERVER, runtimeImports, serverPath, sources } from "../helpers/imports.js";
import { isDoor, unitOf } from "../helpers/folder-units.js";

const BILLING = fileURLToPath(new URL("../../server/billing", import.meta.url));


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

/** The folder a module's imports are judged from: its unit's, or for a route file its domain folder. */
function homeOf(file: string): string {
  const unit = unitOf(file);
  if (!unit) throw new Error(`${file}: no unit of server/layers.ts places it`);
  return unit.path.includes("*") ? file.split("/").slice(0, 2).join("/") : unit.path;
}

/** Imports (type-only included) of another unit's module that is not one of its doors. */
function doorlessImports(): string[] {
  const found: string[] = [];
  for (const file of sources(SERVER)) {
    const from = serverPath(file);
    for (const target of runtimeImports(file, readFileSync(file, "utf8"), true).map(serverPath)) {
      if (unitOf(target) === unitOf(from) || target.startsWith(`${homeOf(from)}/`) || isDoor(target)) continue;
      found.push(`${from} imports ${target}, not a door of ${unitOf(target)?.path ?? "any unit"}`);
    }
  }
  return found;
}

describe("billing domains", () => {
  it("import another unit only through its declared doors", () => {
    expect(doorlessImports(), "import a door (server/layers.ts lists each unit's), or declare the module one").toEqual([]);
    expect(isDoor("billing/orders/service.ts")).toBe(true);
    expect(isDoor("billing/orders/repository.ts")).toBe(false);
    expect(isDoor("db/outbox.ts")).toBe(true);
  });

  it("never import another domain's repository", () => {
    expect(crossRepositoryImports()).toEqual([]);
  });

  it("re-export nothing from a service.ts", () => {
    expect(serviceReExports()).toEqual([]);
  });
});
