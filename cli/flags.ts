// Flag values of the resource commands (products, benefits, discounts, meters, custom fields, customers,
// events), checked before anything is sent. A parser given to commander throws InvalidArgumentError, which
// commander turns into one line naming the flag ("option '--price <amount>' argument '19.99' is invalid.
// expected …"), exit 2. Rules between flags are UsageErrors thrown from the actions.
//
// Amounts are whole numbers in the currency's smallest unit (cents for usd: 1999 is $19.99), as on the
// /v1 wire and in every --json output, so what a command prints can be fed back to it unchanged. A decimal
// amount is refused rather than guessed at: "20" and "20.00" would otherwise differ by a factor of 100.
import { readFileSync } from "node:fs";
import { InvalidArgumentError } from "commander";
import { UsageError } from "./errors.js";
import { isUuid } from "../shared/uuid.js";
import { markRepeatable } from "./repeated-flags.js";

/** PostgreSQL's int4, the ceiling of every integer column on the server. */
export const INT_MAX = 2_147_483_647;

export { isUuid };

/** An id argument or flag: a UUID (a malformed one is caught here, not as the server's 422). */
export function parseId(value: string): string {
  const v = value.trim();
  if (!isUuid(v)) throw new InvalidArgumentError("expected an id (a UUID such as 0b5c1d2e-…), see the list command.");
  return v.toLowerCase();
}

/**
 * A customer on the command line (`--customer`): its id, or its email, which is often all a seller knows;
 * commands turn an email into the id with customerIdOf (cli/commands/customers.ts).
 */
export function parseCustomer(value: string): string {
  const v = value.trim();
  if (isUuid(v)) return v.toLowerCase();
  if (isEmail(v)) return v;
  throw new InvalidArgumentError("expected the customer's id (a UUID such as 0b5c1d2e-…) or email, see `till customers list`.");
}

/** Repeated `--customer <id or email>` flags, collected in order. */
export function collectCustomer(value: string, previous: string[] = []): string[] {
  return [...previous, parseCustomer(value)];
}

/** Repeated id flags (`--benefit <id> --benefit <id>`), collected in order. */
export function collectId(value: string, previous: string[] = []): string[] {
  return [...previous, parseId(value)];
}

/** Repeated free-form flags, collected in order. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function wholeNumber(value: string, min: number, max: number, expected: string): number {
  const v = value.trim();
  const n = /^-?\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(expected);
  return n;
}

/** `--price 1999`: an amount in minor units. */
export function parseAmount(value: string): number {
  if (/^\s*\d*[.,]\d+\s*$/.test(value)) {
    throw new InvalidArgumentError(
      "expected a whole amount in the currency's smallest unit (cents for usd: 1999 for 19.99), not a decimal.",
    );
  }
  return wholeNumber(value, 0, INT_MAX, "expected a whole amount in the currency's smallest unit, such as 1999 for 19.99 usd.");
}

/** `--unit-amount 0.5`: a metered price per unit, in minor units, fractions allowed (the wire's decimal string). */
export function parseUnitAmount(value: string): string {
  const m = /^(\d{1,5})(?:\.(\d{1,12}))?$/.exec(value.trim());
  if (!m || /^[0.]*$/.test(value.trim())) {
    throw new InvalidArgumentError(
      "expected a positive amount per unit in the currency's smallest unit, such as 0.5 (half a cent); at most 5 digits before the point and 12 after.",
    );
  }
  return value.trim();
}

/** Counts and limits: 1 or more. */
export function parsePositive(value: string): number {
  return wholeNumber(value, 1, INT_MAX, "expected a whole number of at least 1.");
}

/** Integers that may be negative (custom field bounds). */
export function parseInteger(value: string): number {
  return wholeNumber(value, -INT_MAX - 1, INT_MAX, "expected a whole number.");
}

export function parseNonNegative(value: string): number {
  return wholeNumber(value, 0, INT_MAX, "expected a whole number of at least 0.");
}

/** `--limit` of a list: the API's page size. */
export function parseLimit(value: string): number {
  return wholeNumber(value, 1, 100, "expected a page size from 1 to 100.");
}

export function parsePage(value: string): number {
  return wholeNumber(value, 1, 1_000_000, "expected a page number of at least 1.");
}

/** `--percent 25` or `12.5` → basis points (2500, 1250). */
export function parsePercent(value: string): number {
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(value.trim());
  const bp = m ? Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0")) : NaN;
  if (!m || bp < 1 || bp > 10_000) throw new InvalidArgumentError("expected a percentage above 0 and at most 100, such as 25 or 12.5.");
  return bp;
}

/** `--currency usd`: an ISO 4217 code, sent lower-case. */
export function parseCurrency(value: string): string {
  const v = value.trim();
  if (!/^[A-Za-z]{3}$/.test(v)) throw new InvalidArgumentError("expected a three-letter currency code such as usd or eur.");
  return v.toLowerCase();
}

/** The values each `oneOf` parser takes, for shell completion to offer (cli/completion.ts). */
const ONE_OF_VALUES = new WeakMap<object, readonly string[]>();

/** The values `parser` takes when it is a `oneOf` parser, else undefined. */
export const valuesOfParser = (parser: object): readonly string[] | undefined => ONE_OF_VALUES.get(parser);

/** An argument that must be one of `values` (a dash may stand for an underscore: license-keys). */
export function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
  const parse = (value: string): T => {
    const v = value.trim().toLowerCase().replace(/-/g, "_");
    const found = values.find((x) => x === v);
    if (!found) throw new InvalidArgumentError(`expected one of ${values.join(", ")}.`);
    return found;
  };
  ONE_OF_VALUES.set(parse, values);
  return parse;
}

export const INTERVALS = ["day", "week", "month", "year"] as const;
export type Interval = (typeof INTERVALS)[number];

const TRIAL_UNITS: Record<string, Interval> = { d: "day", day: "day", w: "week", week: "week", m: "month", month: "month", y: "year", year: "year" };

/** `--trial 14d` → 14 days; `2w`, `1m`, `1y`, `14 days`; `none` removes a trial (update). */
export function parseTrial(value: string): { interval: Interval; count: number } | null {
  const v = value.trim().toLowerCase();
  if (v === "none") return null;
  const m = /^(\d+)\s*([a-z]+?)s?$/.exec(v);
  const interval = m ? TRIAL_UNITS[m[2] ?? ""] : undefined;
  const count = m ? Number(m[1]) : 0;
  if (!m || !interval || count < 1 || count > 1000) {
    throw new InvalidArgumentError("expected a trial length such as 14d, 2w, 1m or 1y (days, weeks, months, years; 1 to 1000), or none.");
  }
  return { interval, count };
}

export type MetadataValue = string | number | boolean;

/**
 * Repeated `--metadata key=value` (the value is a string) or `key:=json` (a number or boolean:
 * `seats:=5`, `beta:=true`), like HTTPie. Keys of 1 to 40 characters, as the server allows.
 */
export function collectMetadata(value: string, previous: Record<string, MetadataValue> = {}): Record<string, MetadataValue> {
  const typed = /^([^=:]+):=(.*)$/s.exec(value);
  const plain = typed ? null : /^([^=]+)=(.*)$/s.exec(value);
  const key = (typed?.[1] ?? plain?.[1] ?? "").trim();
  if (!key || key.length > 40) {
    throw new InvalidArgumentError("expected key=value (a string) or key:=value (a number or true/false), with a key of 1 to 40 characters.");
  }
  let parsed: MetadataValue = plain?.[2] ?? "";
  if (typed) {
    const raw = (typed[2] ?? "").trim();
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      json = undefined;
    }
    if (typeof json !== "number" && typeof json !== "boolean") {
      throw new InvalidArgumentError(`expected a number or true/false after ":=" for ${key} (use ${key}=… for a string).`);
    }
    parsed = json;
  }
  return { ...previous, [key]: parsed };
}

export interface SeatTier {
  min_seats: number;
  max_seats: number | null;
  price_per_seat: number;
}

/** Repeated `--seat-tier 1-10:1000` (seats 1 to 10 at 1000 each), `11+:800` (11 and more); checked as a set later. */
export function collectSeatTier(value: string, previous: SeatTier[] = []): SeatTier[] {
  const m = /^\s*(\d+)\s*(?:-\s*(\d*)|(\+))\s*:\s*(\d+)\s*$/.exec(value);
  const min = Number(m?.[1]);
  const max = m?.[2] ? Number(m[2]) : null;
  const price = Number(m?.[4]);
  if (!m || min < 1 || !Number.isSafeInteger(min) || !Number.isSafeInteger(price) || price > INT_MAX || (max !== null && max < min)) {
    throw new InvalidArgumentError(
      "expected <first>-<last>:<price per seat> or <first>+:<price per seat> in minor units, such as 1-10:1000 or 11+:800.",
    );
  }
  return [...previous, { min_seats: min, max_seats: max, price_per_seat: price }];
}

/** The tiers, sorted, must follow each other without gaps or overlaps; only the last may be open-ended. */
export function checkSeatTiers(tiers: SeatTier[]): SeatTier[] {
  const sorted = [...tiers].sort((a, b) => a.min_seats - b.min_seats);
  const show = (t: SeatTier) => `${t.min_seats}${t.max_seats === null ? "+" : `-${t.max_seats}`}`;
  if (sorted[0] && sorted[0].min_seats !== 1) throw new UsageError(`--seat-tier: the first tier must start at seat 1, got ${show(sorted[0])}`);
  for (let i = 0; i < sorted.length - 1; i++) {
    const t = sorted[i] as SeatTier;
    const next = sorted[i + 1] as SeatTier;
    if (t.max_seats === null) throw new UsageError(`--seat-tier: only the last tier may be open-ended (${show(t)})`);
    if (next.min_seats !== t.max_seats + 1) {
      throw new UsageError(`--seat-tier: tiers ${show(t)} and ${show(next)} ${next.min_seats <= t.max_seats ? "overlap" : "leave a gap"}`);
    }
  }
  return sorted;
}

/** `--starts-at 2025-01-31` (midnight UTC) or an RFC 3339 datetime with an offset. */
export function parseDateTime(value: string): string {
  const v = value.trim();
  const date = /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v;
  const ok = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/.test(date) && !Number.isNaN(Date.parse(date));
  if (!ok || date.startsWith("0000")) {
    throw new InvalidArgumentError("expected a date (2025-01-31, midnight UTC) or a datetime with an offset (2025-01-31T09:00:00+02:00).");
  }
  return new Date(date).toISOString();
}

/** A JSON flag value: inline JSON, @file, or @- for stdin (as `till api -d`). */
export function readJsonFlag(flag: string, value: string): unknown {
  let text = value;
  if (value.startsWith("@")) {
    const file = value.slice(1);
    try {
      text = readFileSync(file === "-" ? 0 : file, "utf8");
    } catch (err) {
      throw new UsageError(`${flag}: cannot read ${file === "-" ? "stdin" : file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`${flag}: expected JSON, @file or @- (${err instanceof Error ? err.message : String(err)})`);
  }
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A JSON object flag (`--properties`, `--filter`). */
export function readJsonObjectFlag(flag: string, value: string): Record<string, unknown> {
  const parsed = readJsonFlag(flag, value);
  if (!isRecord(parsed)) throw new UsageError(`${flag}: expected a JSON object`);
  return parsed;
}

/** Flags given that only make sense with `needed`: "--min: only with --custom-price". */
export function onlyWith(given: Record<string, unknown>, needed: string): void {
  const flag = Object.keys(given).find((k) => given[k] !== undefined && given[k] !== false);
  if (flag) throw new UsageError(`${flag}: only with ${needed}`);
}

/** `--email ada@example.com`: an email address (the server checks it fully). */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const isEmail = (v: string): boolean => EMAIL.test(v);

export function parseEmail(value: string): string {
  const v = value.trim();
  if (!isEmail(v)) throw new InvalidArgumentError("expected an email address such as ada@example.com.");
  return v;
}

/** `--success-url https://…`: an absolute http(s) URL. */
export function parseHttpUrl(value: string): string {
  const v = value.trim();
  let ok = false;
  try {
    const u = new URL(v.replace("{CHECKOUT_ID}", "checkout"));
    ok = u.protocol === "http:" || u.protocol === "https:";
  } catch {
    ok = false;
  }
  if (!ok) throw new InvalidArgumentError("expected an absolute http(s) URL such as https://example.com/thanks.");
  return v;
}

/** `--country fr`: an ISO 3166-1 alpha-2 code, sent upper-case. */
export function parseCountry(value: string): string {
  const v = value.trim();
  if (!/^[A-Za-z]{2}$/.test(v)) throw new InvalidArgumentError("expected a two-letter country code such as FR or US.");
  return v.toUpperCase();
}

markRepeatable(collect, collectId, collectCustomer, collectMetadata, collectSeatTier);
