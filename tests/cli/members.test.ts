// `till customers members list|add|update|remove` and `till customers create --team`, end to end:
// the CLI runs as a child process against the real server; a team customer is made with its owner, members are
// added, listed (text and JSON), promoted to owner (the owner steps down to billing manager) and removed, and the
// owner's removal is refused with the server's message.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;
let key: string;

const run = (args: string[]): Promise<TillResult> => till(args, cli);

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-members");
  key = await seller.createKey();
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: key, TILL_SERVER: server.url } };
});
afterAll(async () => server?.close());

describe("till customers members", () => {
  it("makes a team, adds, lists, promotes and removes members", async () => {
    const created = await run(["customers", "create", "--email", "acme-cli@example.com", "--name", "Acme", "--team", "--owner-email", "olga-cli@example.com", "--json"]);
    expect(created.exitCode, created.stderr).toBe(0);
    const team = parseJson<{ id: string; type: string }>(created.stdout);
    expect(team.type).toBe("team");

    const added = await run(["customers", "members", "add", "acme-cli@example.com", "--email", "ann-cli@example.com", "--name", "Ann", "--role", "billing_manager"]);
    expect(added.exitCode, added.stderr).toBe(0);
    expect(added.stdout + added.stderr).toContain("Added ann-cli@example.com (Ann) as billing_manager");
    expect((await run(["customers", "members", "add", team.id, "--email", "joe-cli@example.com"])).exitCode).toBe(0);
    const badRole = await run(["customers", "members", "add", team.id, "--email", "x@example.com", "--role", "owner"]);
    expect(badRole.exitCode).toBe(2);
    expect(badRole.stderr).toContain("--role: expected one of member, billing_manager");

    const listed = await run(["customers", "members", "list", team.id]);
    expect(listed.exitCode, listed.stderr).toBe(0);
    for (const email of ["olga-cli@example.com", "ann-cli@example.com", "joe-cli@example.com"]) expect(listed.stdout).toContain(email);

    const promoted = await run(["customers", "members", "update", team.id, "ann-cli@example.com", "--role", "owner"]);
    expect(promoted.exitCode, promoted.stderr).toBe(0);
    const owners = parseJson<Array<{ email: string; role: string }>>((await run(["customers", "members", "list", team.id, "--json"])).stdout);
    expect(owners.map((m) => [m.email, m.role])).toEqual([
      ["olga-cli@example.com", "billing_manager"],
      ["ann-cli@example.com", "owner"],
      ["joe-cli@example.com", "member"],
    ]);

    const refused = await run(["customers", "members", "remove", team.id, "ann-cli@example.com"]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("cannot be removed");
    const removed = await run(["customers", "members", "remove", team.id, "joe-cli@example.com"]);
    expect(removed.exitCode, removed.stderr).toBe(0);
    const left = await sdkFor(server, key).members.listMembers({ customerId: team.id });
    expect(left.result.items.map((m) => m.email)).toEqual(["olga-cli@example.com", "ann-cli@example.com"]);

    // an individual customer has none, and says why on add
    expect((await run(["customers", "create", "--email", "solo-cli@example.com"])).exitCode).toBe(0);
    const solo = await run(["customers", "members", "add", "solo-cli@example.com", "--email", "friend@example.com"]);
    expect(solo.exitCode).toBe(1);
    expect(solo.stderr).toContain("team customers");
  });
});
