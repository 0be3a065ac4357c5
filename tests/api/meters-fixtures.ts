// The set-up the /v1/meters tests share (meters*.test.ts): a server of the file's own, the seller with an API key
// and its SDK, another organization, raw requests, and a filter on the api_call events.
import type { Polar } from "@polar-sh/sdk";
import { afterAll, beforeAll } from "vitest";
import { rawOn } from "../helpers/api.js";
import { type Seller, startWithSellers } from "../helpers/seller.js";
import type { TestServer } from "../helpers/server.js";

export const countApiCalls = {
  conjunction: "and" as const,
  clauses: [{ property: "name", operator: "eq" as const, value: "api_call" }],
};

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function metersFixture() {
  const fx = {} as { server: TestServer; seller: Seller; other: Seller; key: string; sdk: Polar };
  beforeAll(async () => {
    Object.assign(fx, await startWithSellers("meters"));
  });
  afterAll(async () => fx.server?.close());
  return Object.assign(fx, { raw: rawOn(() => fx.server) });
}
