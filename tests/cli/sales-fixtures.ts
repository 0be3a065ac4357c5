// The set-up the `till checkouts|orders|subscriptions|refunds` tests share (sales*.test.ts): the seller's CLI
// (seller-cli-fixtures.ts) with a one-time, a monthly, a yearly and a seat-based product, purchases paid with the
// test card, and `till` run under `script` for a real terminal.
import os from "node:os";
import { execa } from "execa";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { beforeAll } from "vitest";
import { createProduct, pay } from "../helpers/checkout.js";
import { sellerCliFixture } from "./seller-cli-fixtures.js";
import { BIN, type TillOptions } from "./till.js";

export const UUID = "0b5c1d2e-0000-4000-8000-000000000000";

export interface Bought {
  checkoutId: string;
  orderId: string;
  customerId: string;
  subscriptionId: string | null;
}

/** Starts the file's server and makes the products in beforeAll; the fields are there once it has run. */
export function salesFixture() {
  const fx = Object.assign(sellerCliFixture("cli-sales"), {} as { oneTime: Product; monthly: Product; yearly: Product; seats: Product });

  /** `till <args>` under `script`, which gives it a terminal for stdin and stderr; `answer` is typed into it. */
  function onTerminal(args: string, answer: string, as: TillOptions = fx.cli) {
    return execa("script", ["-qec", `node ${BIN} ${args} --no-color`, "/dev/null"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: os.tmpdir(), TILL_CONFIG_DIR: as.configDir, ...as.env },
      extendEnv: false,
      reject: false,
      input: `${answer}\n`,
      timeout: 60_000,
    });
  }

  /** A checkout opened through the SDK and paid with the test card; the order it made. */
  async function buy(product: Product, extra: Record<string, unknown> = {}): Promise<Bought> {
    const checkout = await fx.seller.sdk.checkouts.create({ products: [product.id], ...extra });
    await pay(fx.server, checkout);
    const [order] = (await fx.seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    if (!order) throw new Error("no order");
    return { checkoutId: checkout.id, orderId: order.id, customerId: order.customerId, subscriptionId: order.subscriptionId };
  }

  // after sellerCliFixture's beforeAll, which starts the server
  beforeAll(async () => {
    [fx.oneTime, fx.monthly, fx.yearly, fx.seats] = await Promise.all([
      createProduct(fx.seller, "fixed"),
      createProduct(fx.seller, "monthly"),
      fx.seller.sdk.products.create({ name: "Yearly", recurringInterval: "year", prices: [{ amountType: "fixed", priceAmount: 9000, priceCurrency: "usd" }] }),
      createProduct(fx.seller, "seats"),
    ]);
  });
  return Object.assign(fx, { onTerminal, buy });
}
