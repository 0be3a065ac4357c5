// Ingest events are checked without zod when they have the common shape (eventInputFast,
// server/billing/events/ingest-input.ts): over random events, valid and not, the values and the 422 issues
// must be those zod alone gives.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../server/billing/errors.js";
import { parseArraySliced } from "../../server/billing/events/ingest/sliced-parse.js";
import { EventInput, eventInputFast } from "../../server/billing/events/ingest/input.js";

function random(seed: number) {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  return { next, pick };
}

const STRINGS = ["", "a", "x".repeat(40), "x".repeat(41), "x".repeat(128), "x".repeat(129), "x".repeat(256), "x".repeat(257), "x".repeat(500), "x".repeat(501)];
const SCALARS: unknown[] = [0, -1.5, 1e300, true, false, null, ...STRINGS, [], [1], {}, { a: 1 }];
const UUIDS = ["7a0c3a9e-4b5d-4f6e-8a1b-2c3d4e5f6a7b", "7A0C3A9E-4B5D-4F6E-8A1B-2C3D4E5F6A7B", "not-a-uuid", "00000000-0000-0000-0000-000000000000"];
const COSTS: unknown[] = [
  { amount: "1.5", currency: "EUR" },
  { amount: 12, currency: "usd" },
  { amount: -0.25, currency: "Jpy" },
  { amount: 1e21, currency: "USD" },
  { amount: "-3", currency: "gbp", extra: "stripped" },
  { amount: "1.", currency: "USD" },
  { amount: "1e3", currency: "USD" },
  { amount: 1, currency: "xxx" },
  { amount: 1 },
  { currency: "USD" },
  { amount: true, currency: "USD" },
  { amount: 1, currency: 5 },
  "12 USD",
  null,
  [1, "USD"],
];
const LLM = { vendor: "openai", model: "gpt-5", input_tokens: 10, output_tokens: 5, total_tokens: 15 };
const LLMS: unknown[] = [
  LLM,
  { ...LLM, prompt: "hi", response: null, cached_input_tokens: 2 },
  { ...LLM, extra: "stripped", prompt: null },
  { ...LLM, vendor: "v".repeat(101) },
  { ...LLM, model: "m".repeat(200) },
  { ...LLM, input_tokens: -1 },
  { ...LLM, output_tokens: 1.5 },
  { ...LLM, total_tokens: "15" },
  { ...LLM, cached_input_tokens: null },
  { ...LLM, prompt: 3 },
  { vendor: "openai", model: "gpt-5" },
  "openai",
  null,
];
const TIMES = ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00.123+02:00", "2026-01-01", "0000-01-01T00:00:00Z", "yesterday"];

function event(r: ReturnType<typeof random>): unknown {
  const { next, pick } = r;
  if (next() < 0.03) return pick([null, "event", 1, [], [{}]]);
  const e: Record<string, unknown> = {};
  const maybe = (key: string, values: readonly unknown[], p = 0.3) => {
    if (next() < p) e[key] = pick(values);
  };
  maybe("name", [...STRINGS, 1, null], 0.15);
  if (!("name" in e)) e.name = "api.call";
  maybe("timestamp", [...TIMES, 5, null]);
  maybe("organization_id", [...STRINGS, ...UUIDS, null, 3]);
  maybe("external_id", [...STRINGS, null, 7]);
  maybe("parent_id", [...STRINGS, null, false]);
  maybe("customer_id", [...UUIDS, null, 1]);
  maybe("external_customer_id", [...STRINGS, null, 2], 0.8);
  maybe("member_id", ["m", null, 1], 0.1);
  maybe("external_member_id", ["m", null, []], 0.1);
  maybe("extra_field", ["kept out", 1], 0.1);
  if (next() < 0.85) {
    if (next() < 0.05) e.metadata = pick([null, "m", [1], 4]);
    else {
      const m: Record<string, unknown> = {};
      const keys = next() < 0.05 ? 51 : Math.floor(next() * 12);
      for (let k = 0; k < keys; k++) {
        const key = next() < 0.08 ? pick(["", "k".repeat(41), "_cost", "_cost", "_llm", "_llm"]) : `key${k}`;
        m[key] =
          key === "_cost" ? pick(COSTS) : key === "_llm" ? pick(LLMS) : next() < 0.8 ? pick([1, "v", true, 2.5]) : pick(SCALARS);
      }
      e.metadata = m;
    }
  }
  return e;
}

async function outcome(items: unknown[], fast: boolean): Promise<unknown> {
  try {
    return { value: await parseArraySliced(EventInput, items, ["events"], fast ? eventInputFast : undefined) };
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, body: err.body };
    throw err;
  }
}

describe("ingest events without zod", () => {
  it("give zod's values and issues over random batches", async () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = random(seed);
      const size = 1 + Math.floor(r.next() * 12);
      const items = Array.from({ length: size }, () => event(r));
      // a batch with one problem at most and one of every event alone, so that valid values get compared too
      for (const batch of [items, ...items.map((item) => [item])]) {
        expect(await outcome(batch, true), `seed ${seed}: ${JSON.stringify(batch)}`).toEqual(await outcome(batch, false));
      }
    }
  });

  it("rewrites a valid _cost as zod does, without zod, and says the value changed (as the early statement changes it, or not)", () => {
    const metadata = { a: 1, _cost: { amount: 12, currency: "USD", extra: 1 }, b: "two" };
    const got = eventInputFast({ name: "n", external_customer_id: "c", metadata }, ["body", "events", 0]);
    expect(got).toEqual({ value: { name: "n", external_customer_id: "c", metadata: { a: 1, _cost: { amount: "12", currency: "usd" }, b: "two" } }, changed: "in-sql" });
    // amounts whose float8 text is not String()'s, a currency lower() may not read as toLowerCase() does
    const changed = (cost: unknown) => (eventInputFast({ name: "n", external_customer_id: "c", metadata: { _cost: cost } }, ["body", "events", 0]) as { changed?: unknown }).changed;
    for (const amount of [0, -0, 1e-4, -0.5, 999_999_999_999_999, 12.75, "0.10", "-7"]) expect(changed({ amount, currency: "eur" }), String(amount)).toBe("in-sql");
    for (const amount of [9e-5, 1e15, -1e15, 1e21]) expect(changed({ amount, currency: "eur" }), String(amount)).toBe(true);
    expect(changed({ amount: 1, currency: "\u212AES" })).toBe(true); // the Kelvin sign: "kes" to toLowerCase()
    expect(Object.keys((got as { value: { metadata: object } }).value.metadata)).toEqual(["a", "_cost", "b"]);
    expect(metadata._cost).toEqual({ amount: 12, currency: "USD", extra: 1 });
    expect(eventInputFast({ name: "n", external_customer_id: "c", metadata: { _cost: { amount: "1e3", currency: "USD" } } }, ["body", "events", 0])).toBeUndefined();
  });

  it("passes the common event without zod, metadata as sent", () => {
    const metadata = { a: 1, b: "two", c: true };
    const got = eventInputFast({ name: "n", external_customer_id: "c", external_id: "x", metadata, unknown: 1 }, ["body", "events", 0]);
    expect(got).toEqual({ value: { name: "n", external_customer_id: "c", external_id: "x", metadata } });
    expect(eventInputFast({ name: "n", external_customer_id: "c", metadata: { k: { not: "a scalar" } } }, ["body", "events", 3])).toEqual({
      issues: [{ loc: ["body", "events", 3, "metadata", "k"], msg: "Invalid input", type: "value_error", input: { not: "a scalar" } }],
    });
  });
});
