// How `till import` prints a settled run and the list of runs (import.ts gathers them). Tables go to stdout,
// sentences to stderr, as `till payments reconcile` does: a pipe gets the rows alone.
import type { Context } from "../context.js";
import type { ImportAction, ImportItemWire, StripeImportWire } from "../../shared/stripe-import.js";
import { ACTION_WORDS, accountWords, actionsSeen, actionTotal, asideWords, countRows, statusWords } from "../../shared/stripe-import-plan.js";

type Run = StripeImportWire;

const number = (n: number) => n.toLocaleString("en-US");

/** The next step after a settled run, as a command to type. */
export function nextStep(run: Run): string {
  const waiting = actionTotal(run.counts, "waiting");
  const later = waiting > 0 ? `\n${number(waiting)} subscription(s) wait until Stripe's invoice is settled: run \`till import stripe\` again later to move them.` : "";
  if (run.status === "undone") return `Undone: ${number(actionTotal(run.counts, "handed_back"))} subscription(s) handed back to Stripe, which bills them again.`;
  if (run.dry_run) {
    if (run.blocked > 0) return `${number(run.blocked)} item(s) block the import: fix each at Stripe as its reason says, then plan again: till import stripe --dry-run`;
    return "Nothing blocks. Import: till import stripe --apply";
  }
  const undo = `\nUndo (hands back the subscriptions that have not renewed in till yet): till import stripe --undo ${run.id}`;
  if (run.blocked > 0) {
    return `Imported, except ${number(run.blocked)} blocked item(s): fix them at Stripe, then run \`till import stripe\` again to import them.${later}${undo}`;
  }
  return `Imported. Send usage events to till from now on, and switch your webhooks and emails (docs/migrate-from-stripe.md).${later}${undo}`;
}

const itemColumns = (withAction: boolean) => [
  { header: "Kind", value: (i: ImportItemWire) => i.kind },
  { header: "Stripe", value: (i: ImportItemWire) => i.stripe_id },
  { header: "Label", value: (i: ImportItemWire) => i.label },
  ...(withAction ? [{ header: "Action", value: (i: ImportItemWire) => ACTION_WORDS[i.action] }] : []),
  { header: withAction ? "Becomes / reason" : "Reason", value: (i: ImportItemWire) => i.reason ?? i.becomes ?? "—" },
];

/**
 * A settled run's plan: the counts per kind and action, every blocked item, how many wait or are skipped (and how to
 * list them), the items of `--show`, and the next step.
 */
export async function printPlan(ctx: Context, run: Run, blocked: ImportItemWire[], shown?: { actions: ImportAction[]; items: ImportItemWire[] }) {
  const { out } = ctx;
  out.info(out.styleErr.bold(`Import ${run.id} of ${accountWords(run)}: ${statusWords(run)}.`));
  const actions = actionsSeen(run.counts);
  await out.table(
    countRows(run.counts),
    [
      { header: "Kind", value: (r) => r.kind },
      ...actions.map((a) => ({ header: ACTION_WORDS[a], value: (r: ReturnType<typeof countRows>[number]) => number(r.by[a]) })),
      { header: "Total", value: (r) => number(r.total) },
    ],
    { empty: "Stripe had nothing to import." },
  );
  if (blocked.length > 0) {
    out.info(out.styleErr.red(`\nBlocked (${number(blocked.length)}): these cannot be imported as they are.`));
    await out.entries(blocked, itemColumns(false).slice(0, -1), (i) => i.reason ?? "—");
  }
  const listed = new Set(shown?.actions ?? []);
  const unlisted = (["waiting", "skipped"] as const).filter((a) => actionTotal(run.counts, a) > 0 && !listed.has(a));
  const aside = asideWords(run.counts, unlisted);
  if (aside) out.info(`\n${aside}: list them with \`till import show ${run.id} --show ${unlisted.join(",")}\``);
  if (shown) {
    out.info(`\nItems with the action ${shown.actions.map((a) => ACTION_WORDS[a]).join(", ")} (${number(shown.items.length)}):`);
    if (shown.items.length === 0) out.info("None.");
    else await out.entries(shown.items, itemColumns(true).slice(0, -1), (i) => i.reason ?? i.becomes ?? "—");
  }
  out.info(`\n${nextStep(run)}`);
}

export async function printRuns(ctx: Context, runs: Run[]) {
  await ctx.out.table(
    runs,
    [
      { header: "ID", value: (r) => r.id },
      { header: "Status", value: (r) => r.status },
      { header: "Run", value: (r) => (r.dry_run ? "dry run" : "import") },
      { header: "Account", value: (r) => accountWords(r) },
      { header: "Blocked", value: (r) => number(r.blocked) },
      { header: "Started", value: (r) => r.created_at },
      { header: "Finished", value: (r) => r.finished_at ?? "—" },
    ],
    { empty: "No imports yet: `till import stripe` plans one (a dry run, which changes nothing)." },
  );
}
