// `till trigger --override <object>.<field>=<value>`: sets a field of the request body that creates one of
// the objects a trigger makes, as Polar's CLI does. The first segment names the object; the rest is a dotted
// path into that request's /v1 body (a number indexes a list: product.prices.0.price_amount).
import { InvalidArgumentError } from "commander";
import { markRepeatable } from "./repeated-flags.js";

/** The objects whose creating request an override addresses. */
export const OVERRIDE_NOUNS = ["benefit", "product", "checkout", "customer", "refund"] as const;
export type OverrideNoun = (typeof OVERRIDE_NOUNS)[number];

export interface Override {
  noun: OverrideNoun;
  /** The path inside the request body, without the noun. */
  path: string[];
  value: unknown;
  /** As typed, for messages. */
  text: string;
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * `product.name=Pro` (a string) or `product.prices.0.price_amount:=2500` (JSON: a number, true/false, null, an
 * object or a list), like --metadata and HTTPie.
 */
export function parseOverride(value: string, previous: Override[] = []): Override[] {
  const typed = /^([^=:]+):=(.*)$/s.exec(value);
  const plain = typed ? null : /^([^=]+)=(.*)$/s.exec(value);
  const m = typed ?? plain;
  if (!m) throw new InvalidArgumentError("expected <object>.<field>=<value> (a string) or <object>.<field>:=<json>, such as product.name=Pro.");
  const [noun, ...path] = (m[1] ?? "").trim().split(".");
  if (!(OVERRIDE_NOUNS as readonly string[]).includes(noun ?? "")) {
    throw new InvalidArgumentError(`the path starts with the object it sets: one of ${OVERRIDE_NOUNS.join(", ")} (got "${noun ?? ""}").`);
  }
  if (path.length === 0 || !path.every((p) => SEGMENT.test(p))) {
    throw new InvalidArgumentError(`expected a field after "${noun}.", such as ${noun}.metadata.campaign (letters, digits, _ and -, dot-separated).`);
  }
  let parsed: unknown = m[2] ?? "";
  if (typed) {
    try {
      parsed = JSON.parse((m[2] ?? "").trim());
    } catch {
      throw new InvalidArgumentError(`expected JSON after ":=" for ${m[1]} (use ${m[1]}=… for a string).`);
    }
  }
  return [...previous, { noun: noun as OverrideNoun, path, value: parsed, text: value }];
}

const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] => typeof v === "object" && v !== null;

/** Sets `value` at `path` in `target`, making the objects (or, for a numeric next segment, lists) on the way. */
export function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node: Record<string, unknown> | unknown[] = target;
  path.forEach((key, i) => {
    const last = i === path.length - 1;
    const index = Array.isArray(node) && /^\d+$/.test(key) ? Number(key) : undefined;
    const container = node as Record<string, unknown>;
    const at = index ?? key;
    if (last) {
      container[at] = value;
      return;
    }
    let next = container[at];
    if (!isContainer(next)) {
      next = /^\d+$/.test(path[i + 1] ?? "") ? [] : {};
      container[at] = next;
    }
    node = next as Record<string, unknown> | unknown[];
  });
}

markRepeatable(parseOverride);
