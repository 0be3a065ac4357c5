// What POST /v1/events/ingest accepts: the batch envelope and one event (zod, for the wire's messages), and a
// check of the common event without zod (eventInputFast): 1,000 events of 30 metadata keys each were about
// 9 ms of zod's CPU per batch, plus the garbage of two copies of every metadata object.
import { z } from "zod";
import { isCurrencyCode } from "../../../../shared/currencies.js";
import { datetimeInput, valueIssue } from "../../http.js";
import type { ValidationIssue } from "../../errors.js";
import type { FastCheck } from "./sliced-parse.js";

export const INGEST_MAX_EVENTS = 1000;

// ---- ingest input ---------------------------------------------------------------------------------

const METADATA_MAX_KEYS = 50;
const metadataKey = z.string().min(1).max(40);
const metadataScalar = z.union([z.string().max(500), z.number(), z.boolean()]);
/** `_cost`: an amount (number or decimal string) and a currency; stored with the amount as a decimal string. */
const costMetadata = z
  .object({
    amount: z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/, "Input should be a decimal number")]),
    currency: z.string().refine((c) => isCurrencyCode(c.toLowerCase()), "Input should be an ISO 4217 currency code"),
  })
  .transform((c) => ({ amount: String(c.amount), currency: c.currency.toLowerCase() }));
/** `_llm`: token usage of a model call. */
const llmMetadata = z.object({
  vendor: z.string().max(100),
  model: z.string().max(200),
  prompt: z.string().max(100_000).nullish(),
  response: z.string().max(100_000).nullish(),
  input_tokens: z.int().min(0),
  cached_input_tokens: z.int().min(0).optional(),
  output_tokens: z.int().min(0),
  total_tokens: z.int().min(0),
});

const RESERVED_KEYS = new Set(["_cost", "_llm"]);
const SCALAR_STRING_MAX = 500;
const STRING_TOO_LONG = `Too big: expected string to have <=${SCALAR_STRING_MAX} characters`;

/**
 * What metadataScalar says of a value, without zod (a batch holds up to 50,000 of them): null when it passes
 * unchanged, the message of its issue, or undefined when only zod can tell (a non-finite number).
 */
function scalarProblem(value: unknown): string | null | undefined {
  if (typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))) return null;
  if (typeof value === "string") return value.length <= SCALAR_STRING_MAX ? null : STRING_TOO_LONG;
  return typeof value === "number" ? undefined : "Invalid input";
}

const eventMetadata = z
  .record(metadataKey, z.unknown())
  .superRefine((m, ctx) => {
    const keys = Object.keys(m);
    if (keys.length > METADATA_MAX_KEYS) ctx.addIssue({ code: "custom", message: `Metadata can have at most ${METADATA_MAX_KEYS} keys` });
  })
  .transform((m, ctx) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(m)) {
      // the common case without zod; zod's failure path is dear (1,000 bad events: tens of ms)
      if (!RESERVED_KEYS.has(key)) {
        const problem = scalarProblem(value);
        if (problem === null) {
          out[key] = value;
          continue;
        }
        if (problem !== undefined) {
          ctx.addIssue({ code: "custom", path: [key], message: problem });
          continue;
        }
      }
      const schema = key === "_cost" ? costMetadata : key === "_llm" ? llmMetadata : metadataScalar;
      const parsed = schema.safeParse(value);
      if (parsed.success) out[key] = parsed.data;
      else {
        for (const i of parsed.error.issues) {
          ctx.addIssue({ code: "custom", path: [key, ...i.path.map((p) => (typeof p === "symbol" ? String(p) : p))], message: i.message });
        }
      }
    }
    return out;
  });

const customerId = z.uuid({ message: "Input should be a valid UUID" });

export const EventInput = z
  .object({
    name: z.string().min(1).max(128),
    timestamp: datetimeInput.optional(),
    organization_id: z.string().nullish(),
    external_id: z.string().min(1).max(256).nullish(),
    parent_id: z.string().min(1).max(256).nullish(),
    metadata: eventMetadata.optional(),
    customer_id: customerId.optional(),
    external_customer_id: z.string().min(1).max(256).optional(),
    member_id: z.string().nullish(),
    external_member_id: z.string().nullish(),
  })
  .superRefine((e, ctx) => {
    if (e.customer_id === undefined && e.external_customer_id === undefined) {
      ctx.addIssue({ code: "custom", path: ["customer_id"], message: "Either customer_id or external_customer_id is required." });
    }
  });

/** The batch without its events checked (routes.ts checks them in slices: parseArraySliced). */
export const EventsIngestEnvelope = z.object({
  events: z.array(z.unknown()).max(INGEST_MAX_EVENTS, { message: `A batch holds at most ${INGEST_MAX_EVENTS} events.` }),
});
export const EventsIngestInput = z.object({
  events: z.array(EventInput).max(INGEST_MAX_EVENTS, { message: `A batch holds at most ${INGEST_MAX_EVENTS} events.` }),
});
export type EventsIngestInput = z.output<typeof EventsIngestInput>;


type EventInputOutput = z.output<typeof EventInput>;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
const stringOf = (v: unknown, min: number, max: number): v is string => typeof v === "string" && v.length >= min && v.length <= max;
const nullishStringOf = (v: unknown, min: number, max: number): v is string | null | undefined =>
  v === undefined || v === null || stringOf(v, min, max);

const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Whether the early INSERT's statement rewrites this passing `_cost` as costMetadata does (rollups.ts,
 * reservedRewritten): an amount sent as a string; a number whose float8 text is String()'s (both the shortest
 * digits that read back, in positional notation for 1e-4 ≤ |x| < 1e15, and 0 for -0:
 * tests/api/events-cost.test.ts compares them); a currency in ASCII letters (lower() and toLowerCase() agree
 * on them).
 */
const costInSql = (amount: number | string, currency: string): boolean =>
  (typeof amount === "string" || amount === 0 || (Math.abs(amount) >= 1e-4 && Math.abs(amount) < 1e15)) && /^[A-Za-z]+$/.test(currency);

/**
 * costMetadata's output for a `_cost` it passes, without zod, and whether the early statement makes the same of
 * it (costInSql); undefined when zod must say (a refusal).
 */
function costFast(value: unknown): { cost: { amount: string; currency: string }; inSql: boolean } | undefined {
  if (!isPlainObject(value)) return undefined;
  const { amount, currency } = value;
  if (!((typeof amount === "number" && Number.isFinite(amount)) || (typeof amount === "string" && DECIMAL.test(amount)))) return undefined;
  if (typeof currency !== "string" || !isCurrencyCode(currency.toLowerCase())) return undefined;
  return { cost: { amount: String(amount), currency: currency.toLowerCase() }, inSql: costInSql(amount, currency) };
}

const tokenCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/**
 * llmMetadata's output for an `_llm` it passes, without zod (its known keys only, in its order; the early
 * statement keeps the same keys and writes the counts as integers: rollups.ts); undefined when zod must say.
 */
function llmFast(value: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(value)) return undefined;
  const { vendor, model, prompt, response, input_tokens, cached_input_tokens, output_tokens, total_tokens } = value;
  if (!stringOf(vendor, 0, 100) || !stringOf(model, 0, 200)) return undefined;
  if (!nullishStringOf(prompt, 0, 100_000) || !nullishStringOf(response, 0, 100_000)) return undefined;
  if (!tokenCount(input_tokens) || !tokenCount(output_tokens) || !tokenCount(total_tokens)) return undefined;
  if (cached_input_tokens !== undefined && !tokenCount(cached_input_tokens)) return undefined;
  const llm: Record<string, unknown> = { vendor, model };
  if (prompt !== undefined) llm.prompt = prompt;
  if (response !== undefined) llm.response = response;
  llm.input_tokens = input_tokens;
  if (cached_input_tokens !== undefined) llm.cached_input_tokens = cached_input_tokens;
  llm.output_tokens = output_tokens;
  llm.total_tokens = total_tokens;
  return llm;
}

/**
 * metadata's check without zod: true when every value is a scalar metadataScalar passes unchanged; a copy when
 * one is a `_cost` or an `_llm` it passes (which zod's transforms rewrite: `_cost`'s amount a decimal string,
 * its currency in lower case; `_llm`'s known keys only), with whether the early statement rewrites them alike;
 * false when the only problems are scalar values (their issues, zod's, added to `issues`); undefined when zod
 * must say.
 */
function metadataFast(
  m: unknown,
  loc: Array<string | number>,
  issues: ValidationIssue[],
): boolean | { copy: Record<string, unknown>; inSql: boolean } | undefined {
  if (!isPlainObject(m)) return undefined;
  let count = 0;
  let bad: Array<[string, unknown, string]> | undefined;
  let cost: ReturnType<typeof costFast>;
  let llm: ReturnType<typeof llmFast>;
  for (const key in m) {
    if (++count > METADATA_MAX_KEYS || key.length < 1 || key.length > 40 || key === "__proto__") return undefined;
    const value = m[key];
    if (RESERVED_KEYS.has(key)) {
      if (key === "_cost" ? !(cost = costFast(value)) : !(llm = llmFast(value))) return undefined;
      continue;
    }
    const problem = scalarProblem(value);
    if (problem === null) continue;
    if (problem === undefined) return undefined;
    (bad ??= []).push([key, value, problem]);
  }
  if (bad) {
    for (const [key, value, problem] of bad) issues.push(valueIssue([...loc, "metadata", key], problem, value));
    return false;
  }
  if (!cost && !llm) return true;
  // the same keys in the same order as zod's copy
  const copy: Record<string, unknown> = { ...m };
  if (cost) copy._cost = cost.cost;
  if (llm) copy._llm = llm;
  return { copy, inSql: cost ? cost.inSql : true };
}

/**
 * EventInput's answer for the common event, without zod: every field a string within its bounds (or absent),
 * a customer named, metadata of scalars, a `_cost` and an `_llm`. The same value zod gives (metadata: the object
 * sent, unchanged, as zod would copy it; a copy, `changed`, when `_cost` or `_llm` was rewritten: "in-sql" when
 * the early statement rewrites them alike), or the same issues when the
 * only problems are scalar metadata values; undefined: ask zod.
 * tests/unit/event-input-fast.test.ts compares the two.
 */
export const eventInputFast: FastCheck<EventInputOutput> = (item, loc) => {
  if (!isPlainObject(item)) return undefined;
  const { name, timestamp, organization_id, external_id, parent_id, metadata, customer_id, external_customer_id, member_id, external_member_id } = item;
  if (!stringOf(name, 1, 128)) return undefined;
  if (timestamp !== undefined && !(typeof timestamp === "string" && datetimeInput.safeParse(timestamp).success)) return undefined;
  if (!nullishStringOf(organization_id, 0, Infinity) || !nullishStringOf(member_id, 0, Infinity) || !nullishStringOf(external_member_id, 0, Infinity)) {
    return undefined;
  }
  if (!nullishStringOf(external_id, 1, 256) || !nullishStringOf(parent_id, 1, 256)) return undefined;
  if (customer_id !== undefined && !(typeof customer_id === "string" && customerId.safeParse(customer_id).success)) return undefined;
  if (external_customer_id !== undefined && !stringOf(external_customer_id, 1, 256)) return undefined;
  if (customer_id === undefined && external_customer_id === undefined) return undefined;
  let checked: boolean | { copy: Record<string, unknown>; inSql: boolean } = true;
  if (metadata !== undefined) {
    const issues: ValidationIssue[] = [];
    const ok = metadataFast(metadata, loc, issues);
    if (ok === undefined) return undefined;
    if (!ok) return { issues };
    checked = ok;
  }
  const value: EventInputOutput = { name };
  if (timestamp !== undefined) value.timestamp = timestamp;
  if (organization_id !== undefined) value.organization_id = organization_id;
  if (external_id !== undefined) value.external_id = external_id;
  if (parent_id !== undefined) value.parent_id = parent_id;
  if (metadata !== undefined) value.metadata = checked === true ? (metadata as Record<string, unknown>) : checked.copy;
  if (customer_id !== undefined) value.customer_id = customer_id;
  if (external_customer_id !== undefined) value.external_customer_id = external_customer_id;
  if (member_id !== undefined) value.member_id = member_id;
  if (external_member_id !== undefined) value.external_member_id = external_member_id;
  return checked === true ? { value } : { value, changed: checked.inSql ? "in-sql" : true };
};
