// The command nouns, in the order `till --help` lists them; a new noun is one file in this folder
// exporting `register(program)`, plus one line here, under the name it registers (`till <noun>`: a run
// that names a noun registers only that one, see buildProgram). Every command module is part of the one
// script bin/till.js runs (scripts/build-cli.mjs); what a module
// imports at its top level is what costs at every start, whatever the command:
// - Node built-ins: import them normally; the build makes those Node has not loaded yet (crypto, http,
//   readline, …) load on first use;
// - npm packages (the SDK, yaml, zod, conf, open): only inside the action, `await import("pkg")`, or in
//   a module the action imports that way (as catalog.ts does); the build fails on one loaded at start-up;
//   type-only imports are free;
// - Ink and React: only through ctx.out (ui()/live(), cli/ui/*), never from a command module.
import type { Command } from "commander";
import * as signup from "./signup.js";
import * as login from "./login.js";
import * as logout from "./logout.js";
import * as auth from "./auth.js";
import * as orgs from "./orgs.js";
import * as sandbox from "./sandbox.js";
import * as keys from "./keys.js";
import * as products from "./products.js";
import * as benefits from "./benefits.js";
import * as discounts from "./discounts.js";
import * as meters from "./meters.js";
import * as metrics from "./metrics.js";
import * as customFields from "./custom-fields.js";
import * as customers from "./customers.js";
import * as checkouts from "./checkouts.js";
import * as checkoutLinks from "./checkout-links.js";
import * as orders from "./orders.js";
import * as subscriptions from "./subscriptions.js";
import * as refunds from "./refunds.js";
import * as licenseKeys from "./license-keys.js";
import * as seats from "./seats.js";
import * as events from "./events.js";
import * as entitlements from "./entitlements.js";
import * as reservations from "./reservations.js";
import * as catalog from "./catalog.js";
import * as listen from "./listen.js";
import * as webhooks from "./webhooks.js";
import * as emails from "./emails.js";
import * as trigger from "./trigger.js";
import * as api from "./api.js";
import * as open from "./open.js";
import * as files from "./files.js";
import * as completion from "./completion.js";
import * as clock from "./clock.js";
import * as stripe from "./stripe.js";
import * as payments from "./payments.js";
import * as importer from "./import.js";
import * as admin from "./admin.js";

export interface CommandModule {
  register(program: Command): void;
}

/** Each noun's module, by the name of the command it registers. */
export const COMMANDS: Readonly<Record<string, CommandModule>> = {
  signup,
  login,
  logout,
  auth,
  orgs,
  sandbox,
  keys,
  products,
  benefits,
  discounts,
  meters,
  metrics,
  "custom-fields": customFields,
  customers,
  checkouts,
  "checkout-links": checkoutLinks,
  orders,
  subscriptions,
  seats,
  refunds,
  payments,
  "license-keys": licenseKeys,
  events,
  entitlements,
  reservations,
  files,
  catalog,
  listen,
  webhooks,
  emails,
  trigger,
  clock,
  stripe,
  import: importer,
  admin,
  open,
  api,
  completion,
};
