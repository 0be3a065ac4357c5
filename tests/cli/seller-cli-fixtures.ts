// The set-up of the CLI tests that work on one organization (resources*.test.ts, sales*.test.ts): a server of
// the file's own, a seller, and `till` run as a child process with the seller's API key (TILL_API_KEY,
// TILL_SERVER).
import { afterAll, beforeAll, expect } from "vitest";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function sellerCliFixture(tag: string) {
  const fx = {} as { server: TestServer; seller: Seller; cli: TillOptions };
  /** `till args` with the seller's key (and `extra` options). */
  const run = (args: string[], extra: Partial<TillOptions> = {}): Promise<TillResult> => till(args, { ...fx.cli, ...extra });
  beforeAll(async () => {
    fx.server = await startServer();
    fx.seller = await createSeller(fx.server, tag);
    fx.cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await fx.seller.createKey(), TILL_SERVER: fx.server.url } };
  });
  afterAll(async () => fx.server?.close());
  return Object.assign(fx, { run });
}

/** The result, once its exit code is 0 (else the test fails with its stderr). */
export const ok = (r: TillResult) => {
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
};
/** The id of the object a `--json` command printed. */
export const idOf = (r: TillResult) => parseJson<{ id: string }>(ok(r).stdout).id;
/** The JSON a `--json` command printed, once its exit code is 0. */
export const json = <T>(r: TillResult): T => parseJson<T>(ok(r).stdout);
