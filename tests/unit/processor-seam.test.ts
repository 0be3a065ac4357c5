// The payment processor is a seam (docs/architecture.md, "Payments"): billing talks to `PaymentProcessor` and the
// processor-neutral accounts and event types (server/payments/processor.ts, accounts.ts) through the router
// (payments/index.ts), and knows no processor of its own. No module under server/billing/ imports anything under
// server/payments/stripe/ or the `stripe` package — type-only imports, `export … from` and `import()` included.
// There is no exceptions list.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SERVER = fileURLToPath(new URL("../../server", import.meta.url));
const BILLING = path.join(SERVER, "billing");
const STRIPE_ADAPTER = path.join(SERVER, "payments", "stripe");

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) sources(file, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(file);
  }
  return out;
}

/**
 * Every module specifier a source names: imports and re-exports (type-only too), `import()` and `import("…")` types.
 */
function specifiers(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push(arg.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push(node.moduleReference.expression.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Why `specifier`, named by `file`, reaches a processor's own code; null when it does not. */
function processorImport(file: string, specifier: string): string | null {
  if (specifier === "stripe" || specifier.startsWith("stripe/")) return `the \`stripe\` package ("${specifier}")`;
  if (!specifier.startsWith(".")) return null;
  const target = path.resolve(path.dirname(file), specifier);
  const relative = path.relative(STRIPE_ADAPTER, target);
  return relative === "" || !relative.startsWith("..") ? `server/payments/stripe/ ("${specifier}")` : null;
}

function leaks(files: Array<{ file: string; text: string }>): string[] {
  return files.flatMap(({ file, text }) =>
    specifiers(file, text).flatMap((specifier) => {
      const why = processorImport(file, specifier);
      return why ? [`${path.relative(SERVER, file).split(path.sep).join("/")} imports ${why}`] : [];
    }),
  );
}

/** The members of an interface declared in `file` that are optional (`name?`). */
function optionalMembers(file: string, name: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const declaration = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (!declaration) throw new Error(`${name} is not declared in ${file}`);
  return declaration.members.flatMap((m) => (m.questionToken && m.name ? [m.name.getText(source)] : []));
}

describe("the payment processor seam", () => {
  it("PaymentProcessor has no optional member: the test processor implements all of it, as Stripe's adapter does", () => {
    // an optional member would be one only some processors implement, and billing would branch on which
    expect(optionalMembers(path.join(SERVER, "payments", "processor.ts"), "PaymentProcessor")).toEqual([]);
    expect(optionalMembers(path.join(SERVER, "payments", "accounts.ts"), "ProcessorAccounts")).toEqual([]);
  });

  it("no module under server/billing/ imports server/payments/stripe/ or the stripe package", () => {
    const files = sources(BILLING).map((file) => ({ file, text: readFileSync(file, "utf8") }));
    expect(files.length).toBeGreaterThan(100);
    expect(leaks(files), "billing talks to PaymentProcessor and payments/accounts.ts through payments/index.ts").toEqual([]);
  });

  it("sees every way of importing, type-only ones included", () => {
    const file = path.join(BILLING, "fixture", "service.ts");
    const text = [
      'import type { Stripe } from "stripe";',
      'import { type StripeContext } from "../../payments/stripe/connection.js";',
      'export { createStripeAccounts } from "../../payments/stripe/accounts.js";',
      'export type { X } from "../../payments/stripe";',
      'const later = () => import("../../payments/stripe/adapter.js");',
      'type T = import("stripe").Stripe.Dispute;',
      'import { processorFor } from "../../payments/processor.js";',
      'import { serverProcessorAccounts } from "../../payments/index.js";',
      'import { stripeMethodTypes } from "../../../shared/stripe.js";',
      'import type { X } from "../../payments/stripe-like.js";',
    ].join("\n");
    expect(leaks([{ file, text }])).toEqual([
      'billing/fixture/service.ts imports the `stripe` package ("stripe")',
      'billing/fixture/service.ts imports server/payments/stripe/ ("../../payments/stripe/connection.js")',
      'billing/fixture/service.ts imports server/payments/stripe/ ("../../payments/stripe/accounts.js")',
      'billing/fixture/service.ts imports server/payments/stripe/ ("../../payments/stripe")',
      'billing/fixture/service.ts imports server/payments/stripe/ ("../../payments/stripe/adapter.js")',
      'billing/fixture/service.ts imports the `stripe` package ("stripe")',
    ]);
  });
});
