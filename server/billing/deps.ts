// What every billing domain's routes are given (billingPlugin, index.ts, builds it once): a leaf of types, so a
// domain's routes.ts names it without importing the plugin that imports every domain.
import type { Config } from "../config.js";
import type { Database, Db } from "../db/client.js";
import type { ReadRouting } from "../db/replicas.js";
import type { CallerResolver } from "../auth/caller.js";
import type { Mailer } from "../mail/mailer.js";
import type { CallerKind, V1App } from "./contract.js";

export interface BillingDeps {
  db: Db;
  config: Config;
  /** The server's secret (signed download URLs). */
  secret: string;
  /** Mail to customers (portal sign-in codes). */
  mailer: Mailer;
  callers: CallerResolver;
  /** Filled with every /v1 route as it is registered (the tenancy test walks them all). */
  routes?: V1Route[];
  /** LISTEN on a channel of the database (live streams wake on it); polling alone without it. */
  listen?: Database["listen"];
  /**
   * Read replicas: lists, exports, metrics and customer state read from one when it is fresh enough (read-routing.ts).
   */
  reads?: ReadRouting | undefined;
  /** The database's driver (events ingest overlaps its INSERT with its checks on PostgreSQL only). */
  driver?: Database["driver"];
}

export interface V1Route {
  method: string;
  url: string;
  /** Who calls it (billing/contract.ts). */
  caller: CallerKind;
}

export type DomainRoutes = (app: V1App, deps: BillingDeps) => void | Promise<void>;
