// `till clock`: the sandbox organization's test clock (POST /v1/test-clock/advance, GET /v1/test-clock, till
// extensions). `till clock advance 31d` moves the sandbox's time forward and returns once the renewals due on the
// way are done (orders, trials ending, cancellations at period end, with their webhooks and emails); `till clock`
// or `till clock status` tells the sandbox's now. It works in the sandbox unless told --live, which the server
// refuses (a live organization has no test clock).
import { InvalidArgumentError, type Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { DURATION_EXAMPLES, parseClockDuration } from "../../shared/clock-durations.js";

interface TestClock {
  now: string;
  offset_ms: number;
  advanced_at: string | null;
  max_periods_per_advance: number;
  from?: string;
  renewals?: number;
  expired_checkouts?: number;
}

/** `31d`, `1w2d`, `12h`, `1mo`, `1y` (checked here; the server checks it again). */
function parseDuration(value: string): string {
  const v = value.trim();
  if (parseClockDuration(v) === null) throw new InvalidArgumentError(`expected a duration such as ${DURATION_EXAMPLES}.`);
  return v.toLowerCase();
}

function parseInstant(value: string): string {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new InvalidArgumentError("expected a date-time such as 2027-01-31T00:00:00Z.");
  return new Date(t).toISOString();
}

function ahead(offset: number): string {
  // to the nearest minute: an advance ends a few milliseconds short of the round figure (time passed while it ran)
  const ms = Math.round(offset / 60_000) * 60_000;
  const days = Math.floor(ms / 86_400_000);
  const hours = Math.floor((ms % 86_400_000) / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  return ms < 60_000 ? "on the wall clock" : `${days}d ${hours}h ${minutes}m ahead of the wall clock`;
}

async function status(ctx: Context) {
  const clock = await ctx.out.loading("Reading the clock", v1(ctx).get<TestClock>("/test-clock"));
  ctx.out.done(clock, `Sandbox time: ${clock.now} (${ahead(clock.offset_ms)}).`);
}

async function advance(ctx: Context, opts: { to?: string }, [by]: string[]) {
  if ((by === undefined) === (opts.to === undefined)) {
    throw new UsageError("give either a duration (till clock advance 31d) or --to <date-time>.");
  }
  const body = by !== undefined ? { by } : { to: opts.to };
  const clock = await ctx.out.loading("Advancing the sandbox's clock", v1(ctx).send<TestClock>("POST", "/test-clock/advance", body));
  const renewals = clock.renewals ?? 0;
  const expired = clock.expired_checkouts ?? 0;
  const checkouts = expired > 0 ? `, ${expired} checkout${expired === 1 ? "" : "s"} expired` : "";
  ctx.out.done(clock, `Sandbox time: ${clock.now} (was ${clock.from}); ${renewals} renewal${renewals === 1 ? "" : "s"}${checkouts} on the way.`);
}

export function register(program: Command): void {
  const clock = program
    .command("clock")
    .description("the sandbox's test clock: advance time to see renewals, trials and expiries happen")
    .addHelpText(
      "after",
      examples(["till clock", "till clock advance 31d", "till clock advance --to 2027-03-01T00:00:00Z", "till clock status --json"]) +
        "\nThe clock exists only in the sandbox (a till_test_ key, or a session in sandbox mode, which is the default\n" +
        "here): live time cannot be moved. It only goes forward. An advance stops at each subscription period end on\n" +
        "the way and renews what is due then, in order (a 3-month advance renews a monthly plan three times, each with\n" +
        "its order and webhooks), and answers when that is done; one advance may cross at most 24 periods of a\n" +
        "subscription. Checkout and license key expiries and event timestamps follow the sandbox's clock.\n",
    )
    .action(withContext(status, { sandboxByDefault: true, name: "till clock" }));

  clock
    .command("status")
    .description("the sandbox's now, and how far it is ahead of the wall clock")
    .addHelpText("after", examples(["till clock status", "till clock status --json"]))
    .action(withContext(status, { sandboxByDefault: true, name: "till clock status" }));

  clock
    .command("advance")
    .description("move the sandbox's time forward and run the renewals due on the way")
    .argument("[duration]", "how far: 31d, 1w, 12h, 30m, 90s, 1mo, 1y, 1d12h (months and years by the calendar)", parseDuration)
    .option("--to <date-time>", "to this time instead (after the clock's now)", parseInstant)
    .addHelpText("after", examples(["till clock advance 31d", "till clock advance 1mo", "till clock advance 1d12h", "till clock advance --to 2027-03-01T00:00:00Z --json"]))
    .action(withContext(advance, { sandboxByDefault: true, name: "till clock advance" }));
}
