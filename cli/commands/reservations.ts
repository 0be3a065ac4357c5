// `till reservations create|get|commit|release`: hold units of a customer's meter balance, then settle the hold
// with the units used (a usage event; the rest released) or release it (/v1/reservations, till's own API). A hold
// the balance does not cover is refused at once (exit 3, as `entitlements check` refusing); an unsettled hold
// expires by itself after --expires-in.
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { ApiError, EXIT, UsageError } from "../errors.js";
import { collectMetadata, parseCustomer, parseId, type MetadataValue } from "../flags.js";
import { customerOfFlags, parseUnits, type CustomerFlags } from "./entitlements.js";

export interface WireReservation {
  id: string;
  created_at: string;
  organization_id: string;
  customer_id: string;
  meter_id: string;
  units: number;
  used_units: number | null;
  status: "held" | "committed" | "released" | "expired";
  expires_at: string;
  settled_at: string | null;
  metadata: Record<string, MetadataValue>;
}

const amount = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 6 });
const units = (n: number) => `${amount(n)} unit${n === 1 ? "" : "s"}`;
const minute = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`;

/** `--expires-in`: seconds, or a number with s, m or h; at most a day (the server's bound). */
export function parseHold(value: string): number {
  const m = /^(\d+)\s*([smh]?)$/.exec(value.trim());
  const seconds = m ? Number(m[1]) * ({ "": 1, s: 1, m: 60, h: 3600 } as const)[m[2] as "" | "s" | "m" | "h"] : NaN;
  if (!(seconds >= 1 && seconds <= 86_400)) throw new UsageError(`--expires-in: expected a duration of 1s to 24h (such as 300, 5m or 1h), got ${JSON.stringify(value)}`);
  return seconds;
}

/** Commit's units: 0 (nothing used: the hold is released) or more. */
function parseUsed(value: string): number {
  const n = Number(value.trim());
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || n > 1e12) throw new UsageError(`--units: expected the units used (0 or more), got ${JSON.stringify(value)}`);
  return n;
}

interface CreateFlags extends CustomerFlags {
  meter: string;
  units: number;
  expiresIn?: number;
  metadata?: Record<string, MetadataValue>;
}

async function create(ctx: Context, opts: CreateFlags) {
  const body = { ...(await customerOfFlags(ctx, opts)), feature: opts.meter, units: opts.units, expires_in: opts.expiresIn, metadata: opts.metadata };
  const r = await ctx.out.loading("Reserving", v1(ctx).send<WireReservation>("POST", "/reservations/", body)).catch((err: unknown) => {
    // a hold the balance does not cover: the same exit code as a refused check
    if (err instanceof ApiError && err.code === "ReservationRefused") throw new ApiError(err.status, `refused: ${err.message}`, err.code, err.hint, { exitCode: EXIT.refused, request: err.request });
    throw err;
  });
  ctx.out.done(r, `Held ${units(r.units)} of meter ${r.meter_id} for customer ${r.customer_id} until ${minute(r.expires_at)}: reservation ${r.id}.`);
}

async function get(ctx: Context, _opts: object, [id = ""]: string[]) {
  const r = await ctx.out.loading("Loading reservation", v1(ctx).get<WireReservation>(`/reservations/${id}`));
  await ctx.out.record(r, [
    { label: "ID", value: r.id },
    { label: "Status", value: r.status },
    { label: "Customer", value: r.customer_id },
    { label: "Meter", value: r.meter_id },
    { label: "Units held", value: amount(r.units) },
    { label: "Units used", value: r.used_units === null ? "none" : amount(r.used_units) },
    { label: "Expires", value: minute(r.expires_at) },
    { label: "Settled", value: r.settled_at ? minute(r.settled_at) : "not yet" },
  ]);
}

async function commit(ctx: Context, opts: { units: number }, [id = ""]: string[]) {
  const r = await ctx.out.loading("Committing", v1(ctx).send<WireReservation>("POST", `/reservations/${id}/commit`, { units: opts.units }));
  const used = r.used_units ?? 0;
  const rest = r.units - used;
  ctx.out.done(r, `Committed ${amount(used)} of ${units(r.units)} held${rest > 0 ? ` (${amount(rest)} released)` : ""}: reservation ${r.id}.`);
}

async function release(ctx: Context, _opts: object, [id = ""]: string[]) {
  const r = await ctx.out.loading("Releasing", v1(ctx).send<WireReservation>("POST", `/reservations/${id}/release`));
  ctx.out.done(r, `Released reservation ${r.id}: ${units(r.units)} back in the balance.`);
}

export function register(program: Command): void {
  const reservations = program
    .command("reservations")
    .description("hold units of a customer's meter balance, then commit the units used or release them")
    .addHelpText(
      "after",
      examples([
        "till reservations create --customer ada@example.com --meter compute --units 100",
        "till reservations commit <id> --units 42",
        "till reservations release <id>",
      ]),
    );

  reservations
    .command("create")
    .description("hold units of the customer's balance (refused at once, exit 3, when the balance does not cover them)")
    .option("--customer <id|email>", "the customer, by its id or email", parseCustomer)
    .option("--external-customer-id <id>", "the customer, by your own id for them (its external id)")
    .requiredOption("--meter <name|id>", "the meter whose balance is held, by name or id")
    .requiredOption("--units <n>", "the units to hold", parseUnits)
    .option("--expires-in <duration>", "release the hold by itself after this long: seconds, or 5m, 1h (default 5m, at most 24h)", parseHold)
    .option("--metadata <key=value>", "metadata, repeatable; key:=5 or key:=true for a number or boolean", collectMetadata)
    .addHelpText(
      "after",
      examples([
        "till reservations create --customer ada@example.com --meter compute --units 100",
        "ID=$(till reservations create --external-customer-id user_42 --meter compute --units 5 --expires-in 1h --json --jq .id)",
      ]),
    )
    .action(withContext(create));

  reservations
    .command("get")
    .description("show a reservation: held, committed, released or expired")
    .argument("<id>", "the reservation", parseId)
    .addHelpText("after", examples(["till reservations get <id>", "till reservations get <id> --json"]))
    .action(withContext(get));

  reservations
    .command("commit")
    .description("settle a hold with the units used (at most those held): they become a usage event, the rest is released")
    .argument("<id>", "the reservation", parseId)
    .requiredOption("--units <n>", "the units used (0: nothing was used)", parseUsed)
    .addHelpText("after", examples(["till reservations commit <id> --units 42"]))
    .action(withContext(commit));

  reservations
    .command("release")
    .description("release a hold: none of its units were used")
    .argument("<id>", "the reservation", parseId)
    .addHelpText("after", examples(["till reservations release <id>"]))
    .action(withContext(release));
}
