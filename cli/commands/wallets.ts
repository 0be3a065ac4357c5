// `till customers wallet <id>`: a customer's wallets (their prepaid balance per currency, /v1/wallets/) with each
// one's recent history (till's /v1/wallets/{id}/transactions); `--top-up <amount> --currency usd` charges the
// customer's saved card that amount and credits the wallet (till's POST /v1/wallets/{id}/top-up; the wallet is
// opened first when the customer has none in the currency).
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

async function topUp(ctx: Context, customerId: string, amount: number, currency: string): Promise<WireWallet> {
  const opened = await v1(ctx).send<WireWallet>("POST", "/wallets/", { customer_id: customerId, currency });
  return ctx.out.loading(`Charging ${money(amount, currency)} to the customer's card`, v1(ctx).send<WireWallet>("POST", `/wallets/${opened.id}/top-up`, { amount }, randomUUID()));
}

const show = (customerIdOf: CustomerIdOf) => async (ctx: Context, opts: { topUp?: number; currency?: string }, [ref = ""]: string[]) => {
  const customerId = await customerIdOf(ctx, ref);
  if (opts.topUp !== undefined) {
    if (!opts.currency) throw new UsageError("--top-up needs --currency (usd, eur, …)", "the wallet's currency");
    const w = await topUp(ctx, customerId, opts.topUp, opts.currency.toLowerCase());
    return ctx.out.done(w, `Topped up the ${w.currency.toUpperCase()} wallet: the balance is ${money(w.balance, w.currency)}.`);
  }
  const wallets = await ctx.out.loading("Loading wallets", v1(ctx).get<{ items: WireWallet[] }>("/wallets/", { customer_id: customerId, limit: 100 }));
  const withHistory = await Promise.all(
    wallets.items.map(async (w) => ({ ...w, transactions: (await v1(ctx).get<{ items: WireTransaction[] }>(`/wallets/${w.id}/transactions`, { limit: 20 })).items })),
  );
  if (ctx.out.json) return ctx.out.printJson({ items: withHistory });
  if (withHistory.length === 0) return ctx.out.info("No wallet: the customer has bought no credits. `till customers wallet <id> --top-up 2000 --currency usd` charges their card.");
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

export function registerWallet(customers: Command, customerIdOf: CustomerIdOf): void {
  customers
    .command("wallet")
    .description("a customer's wallets (prepaid balance per currency) and their history; --top-up charges their card")
    .argument("<id>", "the customer's id or email")
    .option("--top-up <amount>", "charge the customer's saved card this amount (minor units: 2000 = $20.00) into the wallet", parseAmount)
    .option("--currency <code>", "the wallet's currency, with --top-up (usd, eur, …)")
    .addHelpText("after", examples(["till customers wallet <id>", "till customers wallet ada@example.com --json", "till customers wallet <id> --top-up 2000 --currency usd"]))
    .action(withContext(show(customerIdOf)));
}
