// `till orgs locale show|set`, end to end: the CLI as a child process against the real server with an
// organization API key; what it sets is the organization's default_locale as GET /v1/organizations/{id} answers it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;

const run = (args: string[]): Promise<TillResult> => till(args, cli);
const stored = async () => (await rawRequest(server.url, seller.token, "GET", `/v1/organizations/${seller.organizationId}`)).body.default_locale;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-locale");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
});
afterAll(async () => server?.close());

describe("till orgs locale", () => {
  it("shows none, sets a locale, refuses an unknown one (the server's 422), resets", async () => {
    const shown = await run(["orgs", "locale", "show"]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("none (English)");

    const set = await run(["orgs", "locale", "set", "pt-BR", "--json"]);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(parseJson(set.stdout)).toEqual({ default_locale: "pt-BR" });
    expect(await stored()).toBe("pt-BR");

    const bad = await run(["orgs", "locale", "set", "klingon"]);
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toContain("Input should be one of en, de");
    expect(await stored()).toBe("pt-BR");

    const none = await run(["orgs", "locale", "set"]);
    expect(none.exitCode).toBe(2);

    const reset = await run(["orgs", "locale", "set", "--reset", "--json"]);
    expect(reset.exitCode, reset.stderr).toBe(0);
    expect(parseJson(reset.stdout)).toEqual({ default_locale: null });
  });
});
