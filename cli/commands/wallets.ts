// `till customers wallet <id>`: a customer's wallets (their prepaid balance per currency, /v1/wallets/) with each
// one's recent history (till's /v1/wallets/{id}/transactions); `--top-up <amount> --currency usd` charges the
// customer's saved card that amount and credits the wallet (till's POST /v1/wallets/{id}/top-up; the wallet is
// opened first when the customer has none in the currency). `till customers wallet adjust <id> --credit|--debit
// <amount> --currency usd --reason "…"` credits or debits it by hand (till's POST /v1/wallets/{id}/adjustments).
import { randomUUID } from "node:crypto";
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { parseAmount } from "../flags.js";
import { money } from "../words.js";

/** Finds the customer's id from an id or an email (customers.ts's, passed in: customers.ts registers this command). */
type CustomerIdOf = (ctx: Context, ref: string) => Promise<string>;

interface WireWallet {
  id: string;
  customer_id: string;
  balance: number;
  currency: string;
}

interface WireTransaction {
  id: string;
  created_at: string;
  type: string;
  amount: number;
  currency: string;
  description: string;
  order_id: string | null;
}

/** The wallet after the top-up, and whether the charge is still on its way (202: a bank debit processing). */
async function topUp(ctx: Context, customerId: string, amount: number, currency: string): Promise<{ wallet: WireWallet; processing: boolean }> {
  const opened = await v1(ctx).send<WireWallet>("POST", "/wallets/", { customer_id: customerId, currency });
  const answered = await ctx.out.loading(
    `Charging ${money(amount, currency)} to the customer's saved payment method`,
    v1(ctx).sendFor<WireWallet>("POST", `/wallets/${opened.id}/top-up`, { amount }, randomUUID()),
  );
  return { wallet: answered.body, processing: answered.status === 202 };
}

const show = (customerIdOf: CustomerIdOf) => async (ctx: Context, opts: { topUp?: number; currency?: string }, [ref = ""]: string[]) => {
  const customerId = await customerIdOf(ctx, ref);
  if (opts.topUp !== undefined) {
    if (!opts.currency) throw new UsageError("--top-up needs --currency (usd, eur, …)", "the wallet's currency");
    const { wallet: w, processing } = await topUp(ctx, customerId, opts.topUp, opts.currency.toLowerCase());
    if (processing) {
      return ctx.out.done(
        w,
        `The ${money(opts.topUp, w.currency)} debit from the customer's bank account is processing: the ${w.currency.toUpperCase()} ` +
          `wallet is credited when the bank confirms it (the balance is ${money(w.balance, w.currency)} until then).`,
      );
    }
    return ctx.out.done(w, `Topped up the ${w.currency.toUpperCase()} wallet: the balance is ${money(w.balance, w.currency)}.`);
  }
  const wallets = await ctx.out.loading("Loading wallets", v1(ctx).get<{ items: WireWallet[] }>("/wallets/", { customer_id: customerId, limit: 100 }));
  const withHistory = await Promise.all(
    wallets.items.map(async (w) => ({ ...w, transactions: (await v1(ctx).get<{ items: WireTransaction[] }>(`/wallets/${w.id}/transactions`, { limit: 20 })).items })),
  );
  if (ctx.out.json) return ctx.out.printJson({ items: withHistory });
  if (withHistory.length === 0) return ctx.out.info("No wallet: the customer has bought no credits. `till customers wallet <id> --top-up 2000 --currency usd` charges their saved payment method.");
  for (const w of withHistory) {
    ctx.out.info(`${w.currency.toUpperCase()} wallet ${w.id}: balance ${money(w.balance, w.currency)}`);
    await ctx.out.table(
      w.transactions,
      [
        { header: "DATE", value: (t) => t.created_at.slice(0, 16).replace("T", " ") },
        { header: "WHAT", value: (t) => t.description },
        { header: "AMOUNT", value: (t) => `${t.amount > 0 ? "+" : ""}${money(t.amount, t.currency)}` },
        { header: "ORDER", value: (t) => t.order_id ?? "" },
      ],
      { empty: "No movements yet." },
    );
  }
};

interface AdjustFlags {
  credit?: number;
  debit?: number;
  currency?: string;
  reason?: string;
}

const adjust = (customerIdOf: CustomerIdOf) => async (ctx: Context, opts: AdjustFlags, [ref = ""]: string[]) => {
  if ((opts.credit === undefined) === (opts.debit === undefined)) {
    throw new UsageError("give one of --credit <amount> or --debit <amount>", "till customers wallet adjust <id> --credit 500 --currency usd --reason \"Goodwill\"");
  }
  if (!opts.currency) throw new UsageError("--currency is required (usd, eur, …)", "the wallet's currency");
  if (!opts.reason?.trim()) throw new UsageError("--reason is required", "why the balance moves: the wallet's history shows it");
  const customerId = await customerIdOf(ctx, ref);
  const amount = opts.credit ?? -(opts.debit ?? 0);
  const opened = await v1(ctx).send<WireWallet>("POST", "/wallets/", { customer_id: customerId, currency: opts.currency.toLowerCase() });
  const t = await ctx.out.loading("Adjusting the wallet", v1(ctx).send<WireTransaction>("POST", `/wallets/${opened.id}/adjustments`, { amount, reason: opts.reason }, randomUUID()));
  const w = await v1(ctx).get<WireWallet>(`/wallets/${opened.id}`);
  const what = amount > 0 ? `Credited ${money(amount, w.currency)} to` : `Debited ${money(-amount, w.currency)} from`;
  return ctx.out.done({ transaction: t, wallet: w }, `${what} the ${w.currency.toUpperCase()} wallet: the balance is ${money(w.balance, w.currency)}.`);
};

export function registerWallet(customers: Command, customerIdOf: CustomerIdOf): void {
  const wallet = customers
    .command("wallet")
    .description("a customer's wallets (prepaid balance per currency) and their history; --top-up charges their saved payment method (a bank debit credits the wallet when the bank confirms it)")
    .argument("<id>", "the customer's id or email")
    .option("--top-up <amount>", "charge the customer's saved card or bank account this amount (minor units: 2000 = $20.00) into the wallet", parseAmount)
    .option("--currency <code>", "the wallet's currency, with --top-up (usd, eur, …)")
    .addHelpText(
      "after",
      examples([
        "till customers wallet <id>", "till customers wallet ada@example.com --json", "till customers wallet <id> --top-up 2000 --currency usd",
        "till customers wallet adjust <id> --credit 500 --currency usd --reason \"Goodwill\"",
      ]),
    )
    .action(withContext(show(customerIdOf)));
  wallet
    .command("adjust")
    .description("credit or debit a customer's wallet by hand, with a reason (the history shows it; a debit may not exceed the balance)")
    .argument("<id>", "the customer's id or email")
    .option("--credit <amount>", "add this amount to the balance (minor units: 500 = $5.00)", parseAmount)
    .option("--debit <amount>", "take this amount from the balance (minor units)", parseAmount)
    .option("--currency <code>", "the wallet's currency (usd, eur, …)")
    .option("--reason <text>", "why: shown in the wallet's history")
    .addHelpText("after", examples([
      "till customers wallet adjust ada@example.com --credit 500 --currency usd --reason \"Goodwill credit\"",
      "till customers wallet adjust <id> --debit 200 --currency usd --reason \"Correction\" --json",
    ]))
    // the wallet command knows --currency too and takes it wherever it stands: read it from there
    .action(withContext<AdjustFlags>((ctx, opts, args) => adjust(customerIdOf)(ctx, { ...opts, currency: opts.currency ?? wallet.opts<{ currency?: string }>().currency }, args)));
}
