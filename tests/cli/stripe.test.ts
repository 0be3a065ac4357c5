// `till stripe connect|status|disconnect` end to end: the CLI as a child process against the real server, which
// talks to a Stripe stand-in on loopback. The secret key comes from stdin (@-), a file or TILL_STRIPE_SECRET_KEY,
// never from the command line; it is never printed back.
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reservePort } from "../helpers/ports.js";
import { createSeller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { StripePeer } from "../helpers/stripe-peer.js";
import { parseJson, tempConfigDir, till, type TillOptions } from "./till.js";

const SECRET = "sk_test_51TillCliAaaaaaaaaaaaaaaaaaaa4321";
const PUBLISHABLE = "pk_test_51TillCliBbbbbbbbbbbbbbbbbbbb";

let peer: StripePeer;
let server: TestServer;
let cli: TillOptions;

beforeAll(async () => {
  peer = new StripePeer([{ id: "acct_1Cli", keys: [{ secret: SECRET }] }]);
  const stripeUrl = await peer.start();
  const { port, release } = await reservePort();
  await release();
  server = await startServer(
    { TILL_BASE_URL: "https://till.example.com", TILL_TRUSTED_ORIGINS: `http://127.0.0.1:${port}`, TILL_STRIPE_API_URL: stripeUrl },
    { port },
  );
  const seller = await createSeller(server, "cli-stripe");
  // a sandbox key: the sandbox takes test-mode keys
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createSandboxKey(), TILL_SERVER: server.url } };
});
afterAll(async () => {
  await server?.close();
  await peer?.stop();
});

describe("till stripe", () => {
  it("refuses a key on the command line, and asks for one nobody can type", async () => {
    const inline = await till(["stripe", "connect", "--publishable-key", PUBLISHABLE, "--secret-key", SECRET], cli);
    expect(inline.exitCode).toBe(2);
    expect(inline.stderr).toContain("--secret-key: give @file or @- (stdin), never the key itself");
    const none = await till(["stripe", "connect", "--publishable-key", PUBLISHABLE], cli);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain("TILL_STRIPE_SECRET_KEY");
    expect(peer.endpoints.size).toBe(0);
  });

  it("connects with the key on stdin, shows the status without the key, and disconnects after --yes", async () => {
    const connected = await till(["stripe", "connect", "--publishable-key", PUBLISHABLE, "--secret-key", "@-"], { ...cli, input: `${SECRET}\n` });
    expect(connected.exitCode, connected.stderr).toBe(0);
    expect(connected.stdout).toContain("acct_1Cli");
    expect(connected.stdout).toContain("sk_test_…4321");
    expect(connected.stderr).toContain("Stripe is connected to the sandbox; its events come to https://till.example.com/api/stripe/webhook/");
    expect(connected.stdout + connected.stderr).not.toContain(SECRET);
    expect(peer.endpoints.size).toBe(1);

    const status = await till(["stripe", "status", "--json"], cli);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(parseJson(status.stdout)).toMatchObject({ connected: true, account_id: "acct_1Cli", livemode: false, last_event: null });

    const asked = await till(["stripe", "disconnect"], cli);
    expect(asked.exitCode).toBe(2);
    expect(asked.stderr).toContain("till stripe disconnect --yes");
    const gone = await till(["stripe", "disconnect", "--yes"], cli);
    expect(gone.exitCode, gone.stderr).toBe(0);
    expect(gone.stdout).toContain("till's webhook endpoint was removed from the account");
    expect(peer.endpoints.size).toBe(0);
    const after = await till(["stripe", "status"], cli);
    expect(after.stdout).toContain("Stripe is not connected to the sandbox: checkouts use till's built-in test processor (test cards).");
  });

  it("reads the key from a file or TILL_STRIPE_SECRET_KEY; a live key on the sandbox is the server's 422 (exit 2)", async () => {
    const file = path.join(os.tmpdir(), `till-stripe-${process.pid}.txt`);
    writeFileSync(file, "sk_live_51TillCliWrongggggggggggggggg0000\n", { mode: 0o600 });
    const wrong = await till(["stripe", "connect", "--publishable-key", PUBLISHABLE, "--secret-key", `@${file}`], cli);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toContain("sandbox organization: it takes Stripe's test-mode keys");
    expect(wrong.stderr).not.toContain("sk_live_51TillCliWrong");
    const fromEnv = await till(["stripe", "connect", "--publishable-key", PUBLISHABLE, "--json"], { ...cli, env: { ...cli.env, TILL_STRIPE_SECRET_KEY: SECRET } });
    expect(fromEnv.exitCode, fromEnv.stderr).toBe(0);
    expect(parseJson(fromEnv.stdout)).toMatchObject({ connected: true, secret_key: "sk_test_…4321" });
  });
});
