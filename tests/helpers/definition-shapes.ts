// What a provider's published definition accepts in a request body or query, reduced to the few forms GitHub's
// OpenAPI description and discord-api-types' declarations use for the routes the loopback peers serve, and the check
// of a request against it. The definitions are read by github-definition.ts and discord-definition.ts; each peer
// words the problems found as its provider does. A property the definition does not name is a problem even where
// the provider would drop it silently: what till sends and the definition lacks is a request that does not mean
// what till thinks.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export type Scalar = string | number | boolean;

export type Shape =
  | { kind: "string" | "integer" | "number" | "boolean"; enum?: Scalar[]; nullable?: boolean }
  | { kind: "array"; items: Shape; nullable?: boolean }
  | { kind: "object"; properties: Record<string, Shape>; required: string[]; additional?: Shape; nullable?: boolean }
  | { kind: "anyOf"; options: Shape[] }
  /** A property declared so that it is never sent (`client_id?: never` in one branch of a union). */
  | { kind: "never" };

export type Problem =
  | { path: string[]; code: "unknown" }
  | { path: string[]; code: "required" }
  | { path: string[]; code: "type"; expected: string; value: unknown }
  | { path: string[]; code: "enum"; allowed: Scalar[]; value: unknown };

/** The problems of `value` against `shape`; `strings` when the value came from a query or a form (all text). */
export function problemsOf(shape: Shape, value: unknown, strings = false, path: string[] = []): Problem[] {
  if (shape.kind === "anyOf") {
    // the branch that fits best speaks for the union (the one with the fewest problems)
    const each = shape.options.map((o) => problemsOf(o, value, strings, path));
    return each.reduce((best, p) => (p.length < best.length ? p : best));
  }
  if (shape.kind === "never") return [{ path, code: "unknown" }];
  if (value === null && shape.nullable) return [];
  if (shape.kind === "object") {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return [{ path, code: "type", expected: "object", value }];
    const record = value as Record<string, unknown>;
    const found: Problem[] = shape.required.filter((k) => record[k] === undefined).map((k) => ({ path: [...path, k], code: "required" as const }));
    for (const [k, v] of Object.entries(record)) {
      const declared = shape.properties[k] ?? shape.additional;
      if (!declared) found.push({ path: [...path, k], code: "unknown" });
      else if (v !== undefined) found.push(...problemsOf(declared, v, strings, [...path, k]));
    }
    return found;
  }
  if (shape.kind === "array") {
    if (!Array.isArray(value)) return [{ path, code: "type", expected: "array", value }];
    return value.flatMap((v, i) => problemsOf(shape.items, v, strings, [...path, String(i)]));
  }
  const scalar = strings && typeof value === "string" ? fromText(shape.kind, value) : value;
  if (!isKind(shape.kind, scalar)) return [{ path, code: "type", expected: shape.kind, value }];
  if (shape.enum && !shape.enum.includes(scalar as Scalar)) return [{ path, code: "enum", allowed: shape.enum, value }];
  return [];
}

function isKind(kind: "string" | "integer" | "number" | "boolean", v: unknown): boolean {
  if (kind === "integer") return typeof v === "number" && Number.isInteger(v);
  return typeof v === kind;
}

/** A query or form value read as the scalar the definition declares (a value that does not read stays text). */
function fromText(kind: "string" | "integer" | "number" | "boolean", v: string): unknown {
  if (kind === "string") return v;
  if (kind === "boolean") return v === "true" ? true : v === "false" ? false : v;
  return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
}

/** Query parameters as one record (a name given twice keeps its last value), for problemsOf. */
export const queryRecord = (q: URLSearchParams): Record<string, string> => Object.fromEntries(q.entries());

/**
 * The text of the extractors and of this module, part of the cache key of what they extracted: a change to how a
 * definition is read makes the cache under .tmp/ be written again, with no version number to remember to bump.
 */
export const ownSource = (): string =>
  ["./definition-shapes.ts", "./github-definition.ts", "./discord-definition.ts"].map((f) => readFileSync(fileURLToPath(new URL(f, import.meta.url)), "utf8")).join("\n");
