// `till orgs dunning show|set`, end to end: the CLI as a child process against the real server with an
// organization API key; what it sets is the organization's dunning_settings as GET /v1/organizations/{id}
// answers it. Bad values are a usage error (exit 2) or the server's 422.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;

const run = (args: string[]): Promise<TillResult> => till(args, cli);
const stored = async () =>
  (await rawRequest(server.url, seller.token, "GET", `/v1/organizations/${seller.organizationId}`)).body.dunning_settings;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-dunning");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
});
afterAll(async () => server?.close());

describe("till orgs dunning", () => {
  it("shows the defaults, sets retries and the end state", async () => {
    const shown = await run(["orgs", "dunning", "show"]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("3d, 5d, 7d");
    expect(shown.stdout).toContain("cancel");

    const set = await run(["orgs", "dunning", "set", "--retries", "2,4", "--then", "unpaid", "--json"]);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(parseJson(set.stdout)).toEqual({ retry_intervals_days: [2, 4], final_action: "unpaid" });
    expect(await stored()).toEqual({ retry_intervals_days: [2, 4], final_action: "unpaid" });

  });

  it("no retries; bad values are exit 2 and change nothing", async () => {
    const none = await run(["orgs", "dunning", "set", "--retries", "none"]);
    expect(none.exitCode, none.stderr).toBe(0);
    expect(none.stdout).toContain("ends at the first failure");

    const bad = await run(["orgs", "dunning", "set", "--retries", "soon"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("--retries");
    const tooLong = await run(["orgs", "dunning", "set", "--retries", "99"]);
    expect(tooLong.exitCode).toBe(2);
    expect(await stored()).toEqual({ retry_intervals_days: [], final_action: "unpaid" });

  });

  it("--reset goes back to the defaults", async () => {
    const reset = await run(["orgs", "dunning", "set", "--reset", "--json"]);
    expect(reset.exitCode, reset.stderr).toBe(0);
    expect(parseJson(reset.stdout)).toEqual({ retry_intervals_days: [3, 5, 7], final_action: "cancel" });
  });
});
