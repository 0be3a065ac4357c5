// Errors are declared once, in an errors.ts (server/billing/errors.ts for the shared ones, a domain's own beside
// its code): no module under server/ constructs an ApiError (or a class extending it) elsewhere, and no route names
// an error model by string in its contract's `responses` (it names the declaration the service throws, from which
// the OpenAPI document takes the model). There is no exceptions list.
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { documentedError, route } from "../../server/billing/contract.js";
import { declareError, errorUnion, notFound, validationError } from "../../server/billing/errors.js";
import { SERVER, sources } from "../helpers/imports.js";


const parsed = sources(SERVER).map((file) => ({
  file,
  where: path.relative(SERVER, file),
  source: ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true),
}));
const isErrorsFile = (file: string) => path.basename(file) === "errors.ts";

function visit(node: ts.Node, each: (n: ts.Node) => void): void {
  each(node);
  node.forEachChild((child) => visit(child, each));
}

/** ApiError and every class that extends it (or extends one that does), by name, wherever declared. */
function apiErrorClasses(): Set<string> {
  const names = new Set(["ApiError"]);
  const heritage: Array<[string, string]> = [];
  for (const { source } of parsed) {
    visit(source, (n) => {
      if (!ts.isClassDeclaration(n) || !n.name) return;
      for (const clause of n.heritageClauses ?? []) {
        for (const t of clause.types) heritage.push([n.name.text, t.expression.getText(source)]);
      }
    });
  }
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, base] of heritage) {
      if (names.has(base) && !names.has(name)) {
        names.add(name);
        grew = true;
      }
    }
  }
  return names;
}

const lineOf = (source: ts.SourceFile, n: ts.Node) => source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1;

describe("errors are declared in errors.ts files", () => {
  it("no module under server/ outside an errors.ts constructs or extends ApiError", () => {
    const classes = apiErrorClasses();
    expect(classes.has("SchemaRefusal")).toBe(true);
    const found: string[] = [];
    for (const { file, where, source } of parsed) {
      if (isErrorsFile(file)) continue;
      visit(source, (n) => {
        if (ts.isNewExpression(n) && classes.has(n.expression.getText(source))) found.push(`${where}:${lineOf(source, n)} ${n.getText(source).slice(0, 60)}`);
        if (ts.isClassDeclaration(n) && n.heritageClauses?.some((c) => c.types.some((t) => classes.has(t.expression.getText(source))))) {
          found.push(`${where}:${lineOf(source, n)} class ${n.name?.text ?? "?"} extends an ApiError`);
        }
      });
    }
    expect(found).toEqual([]);
  });

  it("no route's responses names an error model by string", () => {
    const found: string[] = [];
    for (const { where, source } of parsed) {
      visit(source, (n) => {
        if (!ts.isPropertyAssignment(n) || n.name.getText(source) !== "responses" || !ts.isObjectLiteralExpression(n.initializer)) return;
        for (const p of n.initializer.properties) {
          if (!ts.isPropertyAssignment(p) || Number(p.name.getText(source)) < 400) continue;
          // a media type ("text/plain") is a browser's page, not an error model
          if (ts.isStringLiteral(p.initializer) && !p.initializer.text.includes("/")) found.push(`${where}:${lineOf(source, p)} ${p.getText(source)}`);
        }
      });
    }
    expect(found).toEqual([]);
  });

  it("a declaration builds its ApiError and shows its status and model", () => {
    const gone = declareError({ status: 410, error: "ExpiredCheckoutError", detail: "This checkout session has expired.", code: "checkout_expired" });
    const err = gone();
    expect([err.status, err.body]).toEqual([410, { error: "ExpiredCheckoutError", detail: "This checkout session has expired.", code: "checkout_expired" }]);
    expect(documentedError(gone)).toEqual({ status: 410, model: "ExpiredCheckoutError" });
    expect(documentedError(errorUnion("GoneErrors", [gone]))).toEqual({ status: 410, model: "GoneErrors" });
    expect(notFound().body).toEqual({ error: "ResourceNotFound", detail: "Not found" });
    expect(documentedError("ResourceNotFound")).toBeNull();
  });

  it("the contract's types refuse a model's name or a declaration under another status", () => {
    const contract = (responses: Parameters<typeof route>[0]["responses"]) => route({ operationId: "till:test", responses });
    expect(contract({ 200: "Product", 404: notFound, 422: validationError }).config.responses).toBeDefined();
    // @ts-expect-error an error status names its declaration, not a model's name
    contract({ 200: "Product", 404: "ResourceNotFound" });
    // @ts-expect-error a declaration stands under its own status
    contract({ 200: "Product", 410: notFound });
  });
});
