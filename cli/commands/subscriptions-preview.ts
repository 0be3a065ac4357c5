// What a subscription change would bill, before it is made: `till subscriptions preview <id> [update's flags]`
// (POST /v1/subscriptions/{id}/preview), `till subscriptions upcoming <id>` (the next renewal as it stands), and
// the preview `subscriptions update` prints and asks about at a terminal before it sends the change.
import { v1 } from "../client.js";
import { ask, canAsk } from "../confirm.js";
import type { Context } from "../context.js";
import { EXIT, ExitStatus } from "../errors.js";
import { day, money } from "../resources.js";

interface DraftOrder {
  currency: string;
  subtotal_amount: number;
  discount_amount: number;
  tax_amount: number;
  total_amount: number;
  applied_balance_amount: number;
  due_amount: number;
  items: Array<{ label: string; amount: number }>;
}

export interface Upcoming extends DraftOrder {
  renews_at: string;
}

export interface Preview {
  proration_date: string;
  proration_behavior: string | null;
  changes: boolean;
  order: DraftOrder | null;
  carried_forward: Array<{ label: string; amount: number }>;
  next_renewal: Upcoming | null;
}

const path = (id: string) => `/subscriptions/${encodeURIComponent(id)}`;

/** An order's lines and amounts, indented under its heading. */
function describeOrder(o: DraftOrder): string[] {
  const m = (n: number) => money(n, o.currency);
  const lines = o.items.map((i) => `  ${i.label}: ${m(i.amount)}`);
  if (o.discount_amount !== 0) lines.push(`  discount: −${m(o.discount_amount)}`);
  if (o.tax_amount !== 0) lines.push(`  tax: ${m(o.tax_amount)}`);
  lines.push(`  total: ${m(o.total_amount)}`);
  if (o.applied_balance_amount < 0) lines.push(`  paid from the customer's balance: ${m(-o.applied_balance_amount)}`);
  if (o.applied_balance_amount > 0) lines.push(`  credited to the customer's balance: ${m(o.applied_balance_amount)}`);
  lines.push(`  charged to the payment method: ${m(o.due_amount)}`);
  return lines;
}

export function describePreview(p: Preview): string {
  if (!p.changes) return "This changes nothing.";
  const out: string[] = [];
  if (p.proration_behavior) out.push(`Proration: ${p.proration_behavior}.`);
  out.push(...(p.order ? ["Billed now:", ...describeOrder(p.order)] : ["Billed now: nothing."]));
  if (p.carried_forward.length > 0 && p.next_renewal) {
    const m = (n: number) => money(n, p.next_renewal?.currency ?? "usd");
    out.push("Carried to the next renewal:", ...p.carried_forward.map((l) => `  ${l.label}: ${m(l.amount)}`));
  }
  out.push(...(p.next_renewal ? [`Next renewal, ${day(p.next_renewal.renews_at)}:`, ...describeOrder(p.next_renewal)] : ["No renewal follows."]));
  return out.join("\n");
}

/** `till subscriptions preview <id>`: the update's body, previewed (nothing changes). */
export async function previewCommand(ctx: Context, id: string, body: Record<string, unknown>): Promise<void> {
  const p = await ctx.out.loading("Previewing the change", v1(ctx).send<Preview>("POST", `${path(id)}/preview`, body));
  ctx.out.done(p, `${describePreview(p)}\nNothing was changed: \`till subscriptions update ${id}\` with the same flags makes the change.`);
}

/** `till subscriptions upcoming <id>`. */
export async function upcomingCommand(ctx: Context, id: string): Promise<void> {
  const u = await ctx.out.loading("Loading the next renewal", v1(ctx).get<Upcoming>(`${path(id)}/upcoming`));
  ctx.out.done(u, [`Next renewal of ${id}, ${day(u.renews_at)}:`, ...describeOrder(u)].join("\n"));
}

/**
 * Before `update` sends the change: at a terminal (without --yes) the preview is printed and a yes asked for; the
 * change then goes with the preview's `proration_date`, so it bills what was shown. With --yes, in CI, a pipe or
 * --json nobody is asked and the body goes as given (as before previews existed).
 */
export async function confirmUpdate(ctx: Context, id: string, body: Record<string, unknown>, yes: boolean | undefined): Promise<Record<string, unknown>> {
  if (yes || !canAsk(ctx)) return body;
  const p = await ctx.out.loading("Previewing the change", v1(ctx).send<Preview>("POST", `${path(id)}/preview`, body));
  ctx.out.info(describePreview(p));
  if (!(await ask("Make this change? [y/N] "))) {
    ctx.out.info("Cancelled: nothing was changed.");
    throw new ExitStatus(EXIT.usage);
  }
  // the preview's instant: a change with a proration bills what it showed, to the cent
  return p.proration_behavior === "invoice" || p.proration_behavior === "prorate" ? { ...body, proration_date: p.proration_date } : body;
}
