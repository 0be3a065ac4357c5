// `till import stripe|list|show` (/v1/stripe/imports, till's own): the organization's Stripe Billing business read,
// planned and imported by the server's worker (shared/stripe-import.ts is the wire). The CLI starts a run, waits
// for it to settle (a spinner saying what it reads or moves), then prints the plan: the counts per kind and
// action, every blocked item, and what to do next. Ctrl-C stops the waiting, never the run.
import { Option, type Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import { suggest } from "../completion.js";
import { confirm } from "../confirm.js";
import type { Context } from "../context.js";
import { ApiError, CliError, EXIT, ExitStatus, UsageError } from "../errors.js";
import { oneOf, parseId } from "../flags.js";
import { repeatable } from "../repeated-flags.js";
import { interrupted, pause } from "../signals.js";
import { IMPORT_ACTIONS, isSettled, type ImportAction, type ImportItemWire, type StripeImportWire } from "../../shared/stripe-import.js";
import { progressOf } from "../../shared/stripe-import-plan.js";
import { printPlan, printRuns } from "./import-plan.js";

type Run = StripeImportWire;

/** How often a running import is asked about. */
const POLL_MS = 1000;

const itemsOf = (ctx: Context, id: string) => v1(ctx).listAll<ImportItemWire>(`/stripe/imports/${id}/items`);

/** The run's items with one of `actions` (all of them when `actions` is undefined), every page. */
async function itemsWith(ctx: Context, id: string, actions: readonly ImportAction[] | undefined): Promise<ImportItemWire[]> {
  if (actions === undefined) return itemsOf(ctx, id);
  // the route takes `action` repeated; listAll's query holds one value per key, so one list per action
  const lists = await Promise.all(actions.map((a) => v1(ctx).listAll<ImportItemWire>(`/stripe/imports/${id}/items`, { action: a })));
  return lists.flat();
}

/** The newest run that imported for real (not a dry run), or null: decides what a bare `till import stripe` does. */
async function lastApplied(ctx: Context): Promise<Run | null> {
  const runs = await v1(ctx).listAll<Run>("/stripe/imports");
  return runs.find((r) => !r.dry_run) ?? null;
}

/**
 * Polls the run until it settles, a spinner (or, off a terminal, a line per status) saying what it does.
 * Ctrl-C stops waiting, says how to look again, and exits 130: the run goes on at the server.
 */
async function waitFor(ctx: Context, started: Run): Promise<Run> {
  let run = started;
  if (isSettled(run.status)) return run;
  const stop = interrupted();
  const screen = ctx.out.interactiveErr ? (await ctx.out.live()).showProgress(progressOf(run), process.stderr) : null;
  let lastStatus = run.status;
  if (!screen) ctx.out.info(progressOf(run));
  try {
    for (;;) {
      if ((await pause(POLL_MS, stop.promise)) === "stop") break;
      const next = await Promise.race([v1(ctx).get<Run>(`/stripe/imports/${run.id}`), stop.promise]);
      if (next === "stop") break;
      run = next;
      if (isSettled(run.status)) return run;
      screen?.update(progressOf(run));
      if (!screen && run.status !== lastStatus) ctx.out.info(progressOf(run));
      lastStatus = run.status;
    }
  } finally {
    stop.dispose();
    screen?.stop();
  }
  ctx.out.notice(`Stopped waiting: import ${run.id} goes on at the server. See it with: till import show ${run.id}`);
  throw new ExitStatus(EXIT.interrupted);
}

interface ShowFlags {
  show?: ImportAction[];
}

/**
 * A settled run as the command's result: --json prints the run with all its items; otherwise the plan. Exit 1 when
 * the run failed or anything is blocked (an undo that succeeded exits 0).
 */
async function report(ctx: Context, run: Run, o: ShowFlags): Promise<void> {
  // an undone run's blocked items were left at Stripe before: the undo itself succeeded
  const blocks = run.blocked > 0 && run.status !== "undone";
  if (ctx.out.json) {
    ctx.out.printJson({ ...run, items: await itemsOf(ctx, run.id) });
  } else if (run.status !== "failed") {
    const blocked = blocks ? await itemsWith(ctx, run.id, ["blocked"]) : [];
    const shown = o.show ? await itemsWith(ctx, run.id, o.show) : [];
    await printPlan(ctx, run, blocked, o.show ? { actions: o.show, items: shown } : undefined);
  }
  if (run.status === "failed") {
    throw new CliError(`import ${run.id} failed: ${run.error ?? "the server gave no reason"}`, {
      hint: "check the connection with `till stripe status`, then run `till import stripe` again",
    });
  }
  if (blocks) throw new ExitStatus(EXIT.error);
}

/** POST /stripe/imports, with the hint each refusal needs. */
async function start(ctx: Context, dryRun: boolean): Promise<Run> {
  try {
    return await v1(ctx).send<Run>("POST", "/stripe/imports", { dry_run: dryRun });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      throw err.withHint(`connect the Stripe account first: till stripe connect --publishable-key pk_… ${ctx.sandbox ? "(test keys on the sandbox)" : "(live keys)"}`);
    }
    if (err instanceof ApiError && err.status === 409) throw err.withHint("wait for it: `till import list` shows the run, `till import show <id>` follows it");
    throw err;
  }
}

interface StripeFlags extends ShowFlags {
  dryRun?: boolean;
  apply?: boolean;
  undo?: string;
  yes?: boolean;
}

async function undo(ctx: Context, id: string, o: StripeFlags) {
  await confirm(ctx, {
    yes: o.yes,
    action: "undo",
    reason: "the run's subscriptions go back to Stripe",
    hint: `check the run with \`till import show ${id}\`, then run \`till import stripe --undo ${id} --yes\``,
    question: async () =>
      `Hand back import ${id}'s subscriptions that have not renewed in till yet? Stripe bills them again from their next period. [y/N] `,
  });
  const run = await ctx.out.loading("Asking the server to undo the import", v1(ctx).send<Run>("POST", `/stripe/imports/${id}/undo`));
  await report(ctx, await waitFor(ctx, run), o);
}

async function importStripe(ctx: Context, o: StripeFlags) {
  if (o.dryRun && o.apply) throw new UsageError("--dry-run and --apply: choose one");
  if (o.undo !== undefined) {
    if (o.dryRun || o.apply) throw new UsageError("--undo takes no --dry-run or --apply");
    return undo(ctx, o.undo, o);
  }
  let dryRun = o.dryRun === true;
  if (!o.dryRun && !o.apply) {
    const applied = await ctx.out.loading("Reading the organization's imports", lastApplied(ctx));
    dryRun = applied === null || applied.status === "undone";
    ctx.out.info(
      dryRun
        ? "A dry run: nothing changes, in till or at Stripe (no import was applied yet; --apply imports)."
        : `Importing for real, continuing import ${applied?.id} (applied ${applied?.created_at.slice(0, 10)}); --dry-run only plans.`,
    );
  }
  const run = await ctx.out.loading(dryRun ? "Starting a dry run" : "Starting the import", start(ctx, dryRun));
  await report(ctx, await waitFor(ctx, run), o);
}

async function list(ctx: Context) {
  const runs = await ctx.out.loading("Reading the imports", v1(ctx).listAll<Run>("/stripe/imports"));
  await printRuns(ctx, runs);
}

async function show(ctx: Context, o: ShowFlags, [id = ""]: string[]) {
  const run = await ctx.out.loading("Reading the import", v1(ctx).get<Run>(`/stripe/imports/${id}`));
  await report(ctx, await waitFor(ctx, run), o);
}

/** `--show skipped,waiting` (repeatable): the actions whose items are listed too; `all` lists every item. */
const collectActions = repeatable((value: string, previous: ImportAction[] = []): ImportAction[] => {
  const words = value.split(",").map((v) => v.trim()).filter((v) => v !== "");
  const known = oneOf([...IMPORT_ACTIONS, "all"] as const);
  const actions = words.flatMap((w) => {
    const a = known(w);
    return a === "all" ? [...IMPORT_ACTIONS] : [a];
  });
  return [...new Set([...previous, ...actions])];
});

const showOption = (cmd: Command) =>
  cmd.addOption(
    suggest(
      new Option("--show <actions>", `also list the items with these actions, comma-separated or repeated (${IMPORT_ACTIONS.join(", ")}, or all)`).argParser(collectActions),
      [...IMPORT_ACTIONS, "all"],
    ),
  );

const EXIT_NOTE =
  "\nExit: 0 when nothing is blocked, 1 when an item is blocked (a dry run too) or the run failed. Ctrl-C stops waiting\n" +
  "(exit 130): the run goes on at the server; `till import show <id>` follows it again.\n";

export function register(program: Command): void {
  const imports = program
    .command("import")
    .description("import a business from another billing system (Stripe Billing) into this organization")
    .addHelpText("after", examples(["till import stripe", "till import stripe --apply", "till import list", "till import show <id> --show skipped"]));

  showOption(
    imports
      .command("stripe")
      .description("read the connected Stripe account's catalog, discounts, customers, meters and subscriptions, plan, and import")
      .option("--dry-run", "only plan: nothing changes in till or at Stripe (the default until an import was applied)")
      .option("--apply", "import for real and move the live subscriptions to till (the default once an import was applied)")
      .option("--undo <run>", "hand back the run's subscriptions that have not renewed in till yet", parseId)
      .option("--yes", "with --undo: do not ask first"),
  )
    .addHelpText(
      "after",
      "\nThe subscriptions move at the end of their current Stripe period: till renews them then, charging the same\n" +
        "payment method through your Stripe account, and Stripe's subscription is set to cancel at period end.\n" +
        "docs/migrate-from-stripe.md says what is imported and what is not.\n" +
        EXIT_NOTE +
        examples([
          "till import stripe                      # a dry run: the plan, and what blocks it",
          "till import stripe --show skipped,waiting",
          "till import stripe --apply",
          "till import stripe --json --jq '.items[] | select(.action == \"blocked\")'",
          "till import stripe --undo 5f0c…  --yes",
        ]),
    )
    .action(withContext(importStripe));

  imports.command("list").description("the organization's import runs, newest first").action(withContext(list));

  showOption(imports.command("show").description("one run's plan (waiting for it while it runs)").argument("<id>", "the run's id", parseId))
    .addHelpText("after", EXIT_NOTE + examples(["till import show 5f0c… --show all", "till import show 5f0c… --json"]))
    .action(withContext(show));
}
