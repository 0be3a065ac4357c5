// The server's refusals in the user's words. A 422 names wire fields (`body.prices.0.price_amount`) in zod's
// phrasing; the user typed flags. Each issue is turned into the flag (or argument) of the running command
// that sets the field, when there is one, and zod's stock messages into short sentences — so a server-side
// validation error reads like a local one (exit 2). A 403 for a missing scope names the scope and the
// command that grants it. Field rules stay on the server: only the names and the wording are translated.
import type { Command } from "commander";
import type { Credential } from "./context.js";
import { money } from "./words.js";

/** The command being run (set by withContext): whose flags a 422's fields are mapped to. */
let running: Command | undefined;

export function setRunningCommand(cmd: Command): void {
  running = cmd;
}

/**
 * Wire fields whose flag is not their name in kebab case. Only flags the running command really has are
 * used, so one table serves every command.
 */
const FLAG_OF_FIELD: Record<string, string[]> = {
  price_amount: ["--price"],
  price_currency: ["--currency"],
  recurring_interval: ["--recurring"],
  recurring_interval_count: ["--interval-count"],
  minimum_amount: ["--min"],
  maximum_amount: ["--max"],
  preset_amount: ["--preset"],
  cap_amount: ["--cap"],
  meter_id: ["--meter"],
  benefits: ["--benefit"],
  products: ["--product"],
  product_id: ["--product"],
  customer_id: ["--customer"],
  order_id: ["--order"],
  discount_id: ["--discount"],
  trial_interval: ["--trial"],
  trial_interval_count: ["--trial"],
  billing_name: ["--billing-name"],
  billing_address: ["--country", "--line1", "--postal-code", "--city", "--state"],
  url: ["--url", "<url>"],
  events: ["--events"],
  amount: ["--amount"],
  reason: ["--reason"],
  external_id: ["--set-external-id", "--external-id"],
  name: ["--name", "<name>"],
  code: ["--code", "<code>"],
  email: ["--email", "<email>"],
  customer_email: ["--email"],
  customer_name: ["--name"],
  number: ["--card"],
  exp_month: ["--expiry"],
  exp_year: ["--expiry"],
  confirmation_token_id: ["--card"],
};

/** `--price` or `<name>` when the running command has that flag or argument; undefined otherwise. */
function has(cmd: Command, spelling: string): boolean {
  if (spelling.startsWith("<")) return cmd.registeredArguments.some((a) => `<${a.name()}>` === spelling);
  return cmd.options.some((o) => o.long === spelling);
}

/** The flag or argument of the running command that sets this wire field, if any. */
export function flagFor(loc: readonly unknown[], cmd: Command | undefined = running): string | undefined {
  if (!cmd) return undefined;
  const keys = loc.filter((k): k is string => typeof k === "string" && k !== "body" && k !== "query" && k !== "path");
  for (const key of [...keys].reverse()) {
    const candidates = [...(FLAG_OF_FIELD[key] ?? []), `--${key.replace(/_/g, "-")}`, `<${key.replace(/_/g, "-")}>`];
    const found = candidates.find((c) => has(cmd, c));
    if (found) return found;
  }
  return undefined;
}

/** A wire location as words: `body.prices.0.price_amount` → "prices[0].price amount". */
export function fieldWords(loc: readonly unknown[]): string {
  const parts = loc.filter((k) => k !== "body" && k !== "query" && k !== "path");
  let out = "";
  for (const p of parts) out += typeof p === "number" ? `[${p}]` : `${out ? "." : ""}${String(p).replace(/_/g, " ")}`;
  return out || "the request";
}

const REWORDINGS: Array<[RegExp, (...m: string[]) => string]> = [
  [/^Too small: expected string to have >=1 characters?$/, () => "must not be empty"],
  [/^Too small: expected string to have >=(\d+) characters?$/, (n) => `needs at least ${n} characters`],
  [/^Too big: expected string to have <=(\d+) characters?$/, (n) => `must be at most ${n} characters long`],
  [/^Too small: expected array to have >=1 items?$/, () => "needs at least one value"],
  [/^Too small: expected array to have >=(\d+) items?$/, (n) => `needs at least ${n} values`],
  [/^Too big: expected array to have <=(\d+) items?$/, (n) => `takes at most ${n} values`],
  [/^Too small: expected number to be >=(-?[\d.]+)$/, (n) => `must be at least ${n}`],
  [/^Too small: expected number to be >(-?[\d.]+)$/, (n) => `must be more than ${n}`],
  [/^Too big: expected number to be <=(-?[\d.]+)$/, (n) => `must be at most ${n}`],
  [/^Too big: expected number to be <(-?[\d.]+)$/, (n) => `must be less than ${n}`],
  [/^Invalid input: expected (\w+), received undefined$/, () => "is required"],
  [/^Field required\.?$/, () => "is required"],
  [/^Invalid input: expected (\w+), received (\w+)$/, (want) => `expected ${want === "int" ? "a whole number" : `a ${want}`}`],
  [/^Invalid option: expected one of (.*)$/, (list) => `expected one of ${list.replace(/"/g, "").replace(/\|/g, ", ")}`],
  [/^Invalid UUID$/i, () => "expected an id (a UUID)"],
];

/** zod's stock phrasing as a short sentence; the server's own sentences are kept as they are. */
export function reword(msg: string, currency = "usd"): string {
  // amounts in minor units read as money: "Amount must be at least 50" → "must be at least $0.50"
  // (the per-currency floor adds why: "…: the smallest amount that can be charged in DKK", which the money says)
  const amount = /^Amount must be (0 or )?at least (\d+)(?:: the smallest amount that can be charged in [A-Z]{3})?$/.exec(msg.trim());
  if (amount) return `must be ${amount[1] ? "0 (free) or " : ""}at least ${money(Number(amount[2]), currency)}`;
  for (const [re, say] of REWORDINGS) {
    const m = re.exec(msg.trim());
    if (m) return say(...m.slice(1));
  }
  return msg;
}

export interface Issue {
  loc: readonly unknown[];
  msg: string;
}

/** A 422's issues as one line: "--price: Amount must be at least 50; <name>: must not be empty". */
export function describeIssues(issues: readonly Issue[], cmd: Command | undefined = running): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  const given = cmd?.opts<{ currency?: unknown }>().currency;
  const currency = typeof given === "string" ? given : "usd";
  for (const issue of issues) {
    const line = `${flagFor(issue.loc, cmd) ?? fieldWords(issue.loc)}: ${reword(issue.msg, currency)}`;
    if (!seen.has(line)) parts.push(line);
    seen.add(line);
  }
  return parts.join("; ");
}

/** The scope a 403 says is missing ("This token is missing the scope products:write."), if that is the refusal. */
export function missingScope(detail: string): string | undefined {
  return /missing the scope ([a-z_]+:(?:read|write))/.exec(detail)?.[1];
}

/** What to say about a missing scope, for the credential that lacked it. */
export function scopeRefusal(scope: string, credential: Credential | null): { message: string; hint: string } {
  if (credential?.kind === "api_key") {
    const where = credential.source === "env" ? "TILL_API_KEY" : credential.source === "flag" ? "--api-key" : "the API key";
    return {
      message: `${where} lacks the scope ${scope}`,
      hint: `create a key that has it: till keys create <name> --scope ${scope} (signed in as an owner or admin), then use that key`,
    };
  }
  return {
    message: `your role in this organization does not grant ${scope}`,
    hint: `ask an owner or admin of the organization for a role with ${scope}, or for an API key: till keys create <name> --scope ${scope}`,
  };
}
