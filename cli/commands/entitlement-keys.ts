// `till entitlements keys|rotate-key|snapshot`: the organization's snapshot signing keys (GET /v1/entitlements/keys,
// POST /v1/entitlements/keys/rotate) and a customer's signed snapshot (GET /v1/customers/{id}/entitlements/snapshot
// or …/external/{external_id}/…), till's own API. A rotation makes a new signing key at once; the previous one stays
// in the JWKS until every snapshot it can have signed has expired, so apps verifying snapshots never see a gap.
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { parseCustomer } from "../flags.js";
import { customerIdOf } from "./customers.js";

export interface WireSigningKey {
  kid: string;
  created_at: string;
  retires_at: string | null;
  signing: boolean;
}

interface WireSnapshot {
  token: string;
  kid: string;
  expires_at: string;
}

const minute = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;
const state = (k: WireSigningKey) => (k.signing ? "signing" : `retiring ${k.retires_at ? minute(k.retires_at) : ""}`.trim());

async function showKeys(ctx: Context, items: WireSigningKey[]) {
  await ctx.out.table(
    items,
    [
      { header: "KID", value: (k) => k.kid },
      { header: "STATE", value: state },
      { header: "CREATED", value: (k) => minute(k.created_at) },
    ],
    { empty: "No signing key yet: the first snapshot makes one (or `till entitlements rotate-key`)." },
  );
}

async function listKeys(ctx: Context) {
  const { items } = await ctx.out.loading("Loading keys", v1(ctx).get<{ items: WireSigningKey[] }>("/entitlements/keys"));
  await showKeys(ctx, items);
}

async function rotate(ctx: Context) {
  const { items } = await ctx.out.loading("Rotating", v1(ctx).send<{ items: WireSigningKey[] }>("POST", "/entitlements/keys/rotate"));
  const signing = items.find((k) => k.signing);
  const retiring = items.filter((k) => !k.signing);
  const after = retiring.map((k) => `${k.kid} stays in the JWKS until ${k.retires_at ? minute(k.retires_at) : "its snapshots expire"}`);
  ctx.out.done({ items }, [`New signing key ${signing?.kid ?? "?"}.`, ...after].join("\n"));
}

/** `--ttl`: seconds, or a number with s, m or h, within the server's bounds (10 s to a day). */
export function parseTtl(value: string): number {
  const m = /^(\d+)\s*([smh]?)$/.exec(value.trim());
  const seconds = m ? Number(m[1]) * ({ "": 1, s: 1, m: 60, h: 3600 } as const)[m[2] as "" | "s" | "m" | "h"] : NaN;
  if (!(seconds >= 10 && seconds <= 86_400)) throw new UsageError(`--ttl: expected a lifetime of 10s to 24h (such as 300, 5m or 1h), got ${JSON.stringify(value)}`);
  return seconds;
}

async function snapshot(ctx: Context, opts: { customer?: string; externalCustomerId?: string; ttl?: number }) {
  if (opts.customer !== undefined && opts.externalCustomerId !== undefined) throw new UsageError("--customer and --external-customer-id: name the customer by one of them");
  if (opts.customer === undefined && opts.externalCustomerId === undefined) throw new UsageError("missing the customer: pass --customer <id|email> or --external-customer-id <your id>");
  const path =
    opts.externalCustomerId !== undefined
      ? `/customers/external/${encodeURIComponent(opts.externalCustomerId)}/entitlements/snapshot`
      : `/customers/${await customerIdOf(ctx, opts.customer ?? "")}/entitlements/snapshot`;
  const query = opts.ttl === undefined ? "" : `?ttl=${opts.ttl}`;
  const s = await ctx.out.loading("Signing", v1(ctx).get<WireSnapshot>(`${path}${query}`));
  // the token alone on stdout, so that `$(till entitlements snapshot …)` is the JWS
  ctx.out.done(s, s.token);
  ctx.out.info(`signed with ${s.kid}, expires ${minute(s.expires_at)}`);
}

export function registerKeys(entitlements: Command): void {
  entitlements
    .command("keys")
    .description("list the snapshot signing keys published in the JWKS: the signing one and any still retiring")
    .addHelpText(
      "after",
      examples(["till entitlements keys", "till entitlements keys --json"]) +
        "\nThe public keys are at <server>/.well-known/jwks.json?organization_id=<organization id>.\n",
    )
    .action(withContext(listKeys));

  entitlements
    .command("rotate-key")
    .description("make a new signing key now; the previous one stays in the JWKS until its snapshots have expired")
    .addHelpText("after", examples(["till entitlements rotate-key", "till entitlements rotate-key --json"]))
    .action(withContext(rotate));

  entitlements
    .command("snapshot")
    .description("sign a customer's entitlements (a compact JWS your app verifies offline with the JWKS); prints the token")
    .option("--customer <id|email>", "the customer, by its id or email", parseCustomer)
    .option("--external-customer-id <id>", "the customer, by your own id for them (its external id)")
    .option("--ttl <lifetime>", "how long the snapshot is valid: 10s to 24h (default 300 seconds)", parseTtl)
    .addHelpText(
      "after",
      examples([
        "till entitlements snapshot --customer ada@example.com",
        "till entitlements snapshot --external-customer-id user_42 --ttl 1h",
        "till entitlements snapshot --customer <id> --json --jq .expires_at",
      ]),
    )
    .action(withContext(snapshot));
}
