// `till login`, `till logout` and `till auth status` end to end: the CLI runs as a child process against
// the real server on a loopback port; the test plays the person in the browser over HTTP (sign in, open
// the verification page, approve or deny). Clocks move through the database, not by sleeping.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import { deviceCode } from "../../server/db/schema/auth.js";
import { Client } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { createOrganization, mustCreateKey, person, type Person } from "../auth/key-fixtures.js";
import {
  approve,
  fakeBrowser,
  login,
  parseJson,
  screenText,
  spawnTill,
  spawnTillInTerminal,
  tempConfigDir,
  till,
  waitForText,
  waitForUserCode,
} from "./till.js";

let server: TestServer;
let alice: Person;

beforeAll(async () => {
  server = await startServer(); // device-code polling interval 1 s
  alice = await person(server, "alice");
});
afterAll(async () => server?.close());

interface StoredConfig {
  profiles: Record<
    string,
    { server?: string; token?: string; user?: { email: string }; organization?: { id: string; slug: string } | null }
  >;
}

const readConfig = (dir: string) => JSON.parse(readFileSync(path.join(dir, "config.json"), "utf8")) as StoredConfig;

async function whoamiStatus(token: string): Promise<number> {
  const res = await new Client(server.url).get("/api/whoami", { authorization: `Bearer ${token}` });
  return res.status;
}

async function setDeviceRow(userCode: string, changes: Partial<typeof deviceCode.$inferInsert>): Promise<void> {
  await server.database.db.update(deviceCode).set(changes).where(eq(deviceCode.userCode, hashStoredToken(userCode)));
}

describe("till login (device flow)", () => {
  it("prints the code to stderr, stores the session 0600, and sets the first organization active", async () => {
    const bob = await person(server, "bob");
    const first = await createOrganization(bob, "First");
    await createOrganization(bob, "Second");
    // the device session is a new session: no active organization until the CLI sets one
    const orgs = (await bob.client.get<{ id: string; slug: string }[]>("/api/auth/organization/list")).body;
    const configDir = tempConfigDir();

    const r = await login(server.url, bob.client, { configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/! Your one-time code: [A-Z0-9]{4}-[A-Z0-9]{4}\n/);
    expect(r.stderr).toContain(`Open ${server.url}/device?user_code=`);
    expect(r.stderr).toContain(`or go to ${server.url}/device and enter the code`);
    expect(r.stdout).toBe(`Signed in to ${server.url} as ${bob.user.email}; organization First (${orgs[0]?.slug}).\n`);

    const stored = readConfig(configDir).profiles.default;
    expect(stored?.server).toBe(server.url);
    expect(stored?.user?.email).toBe(bob.user.email);
    expect(stored?.organization?.id).toBe(orgs[0]?.id);
    expect(orgs[0]?.id).toBe(first);
    const token = stored?.token ?? "";
    expect(token).toMatch(/^[A-Za-z0-9]{32}$/);
    // the secret is stored, never printed
    expect(r.stdout + r.stderr).not.toContain(token);
    expect(statSync(path.join(configDir, "config.json")).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o777).toBe(0o700);

    // the stored token is a bearer session whose active organization is the first one
    const who = await new Client(server.url).get<{ kind: string; organization_id: string }>("/api/whoami", {
      authorization: `Bearer ${token}`,
    });
    expect(who.body).toMatchObject({ kind: "session", organization_id: first });
  });

  it("prints only JSON on stdout with --json (the code still goes to stderr)", async () => {
    const configDir = tempConfigDir();
    const r = await login(server.url, alice.client, { configDir }, ["--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(parseJson(r.stdout)).toEqual({
      server: server.url,
      profile: "default",
      user: { id: alice.user.id, email: alice.user.email, name: "Test User" },
      organization: null,
    });
    expect(r.stderr).toMatch(/one-time code: [A-Z0-9]{4}-[A-Z0-9]{4}/);
    expect(readConfig(configDir).profiles.default?.organization).toBeNull();
  });

  it("stores the session under --profile and TILL_PROFILE, leaving other profiles alone", async () => {
    const configDir = tempConfigDir();
    expect((await login(server.url, alice.client, { configDir }, ["--profile", "staging"])).exitCode).toBe(0);
    const viaEnv = await login(server.url, alice.client, { configDir, env: { TILL_PROFILE: "prod" } });
    expect(viaEnv.exitCode, viaEnv.stderr).toBe(0);
    const profiles = readConfig(configDir).profiles;
    expect(Object.keys(profiles).sort()).toEqual(["prod", "staging"]);
    expect(profiles.staging?.token).not.toBe(profiles.prod?.token);
  });

  it("explains a denied request: exit 1 with a hint", async () => {
    const configDir = tempConfigDir();
    const child = spawnTill(["login", "--server", server.url], { configDir });
    const code = await waitForUserCode(child);
    expect((await alice.client.get(`/api/auth/device?user_code=${code}`)).status).toBe(200);
    expect((await alice.client.post("/api/auth/device/deny", { userCode: code })).status).toBe(200);
    const r = await child;
    expect(r.exitCode).toBe(1);
    // the command to run again is this one: the profile has no server yet, so it carries --server
    expect(r.stderr).toContain(`error: the sign-in request was denied in the browser\nhint: run \`till --server ${server.url} login\` again and choose Approve\n`);
    expect(r.stdout).toBe("");
  });

  it("explains an expired code: exit 1 with a hint, as JSON under --json", async () => {
    const configDir = tempConfigDir();
    const child = spawnTill(["login", "--server", server.url, "--json"], { configDir });
    const code = await waitForUserCode(child);
    await setDeviceRow(code, { expiresAt: new Date(Date.now() - 1000) });
    const r = await child;
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("");
    const last = String(r.stderr).trim().split("\n").pop() ?? "";
    expect(JSON.parse(last)).toEqual({
      error: {
        message: "the one-time code expired before it was approved",
        code: "expired_token",
        hint: `run \`till --server ${server.url} login\` again and approve within 30 minutes`,
      },
    });
  });

  it("waits 5 s longer after slow_down", async () => {
    const configDir = tempConfigDir();
    const child = spawnTill(["login", "--server", server.url], { configDir });
    const code = await waitForUserCode(child);
    // as if the CLI had just polled 2 s from now: its next poll (1 s) is answered slow_down, and with the
    // interval grown to 6 s the one after comes ~7 s from now; without the step it would come at ~3-4 s
    const start = Date.now();
    await setDeviceRow(code, { lastPolledAt: new Date(start + 2000) });
    await approve(alice.client, code);
    const r = await child;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(Date.now() - start).toBeGreaterThanOrEqual(5500);
  }, 30_000);

  it("refuses to start in CI: exit 4 pointing at TILL_API_KEY", async () => {
    const r = await till(["login", "--server", server.url], { configDir: tempConfigDir(), env: { CI: "true" } });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toBe(
      `error: \`till --server ${server.url} login\` needs a person at a browser, and CI is set\n` +
        `hint: in CI use an organization API key: create one with \`till --server ${server.url} keys create\`, then set TILL_API_KEY (and TILL_SERVER)\n`,
    );
  });

  it("CI set to an empty string is CI, as Ink reads it: at a terminal it says so instead of drawing nothing and waiting", async () => {
    const r = await spawnTillInTerminal(["login", "--server", server.url, "--no-color"], { configDir: tempConfigDir(), env: { CI: "" } });
    expect(r.exitCode).toBe(4);
    expect(screenText(String(r.stdout))).toContain("needs a person at a browser, and CI is set");
  });

  it("says which server it cannot reach", async () => {
    const r = await till(["login", "--server", "http://127.0.0.1:9"], { configDir: tempConfigDir() });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("error: cannot reach http://127.0.0.1:9:");
  });
});

describe("till auth status and till logout", () => {
  it("status: exit 0 with user, server and organization; logout revokes the session; then exit 4", async () => {
    const carol = await person(server, "carol");
    const org = await createOrganization(carol, "Carol Co");
    const configDir = tempConfigDir();
    expect((await login(server.url, carol.client, { configDir })).exitCode).toBe(0);
    const token = readConfig(configDir).profiles.default?.token ?? "";

    const status = await till(["auth", "status"], { configDir });
    expect(status.exitCode, status.stderr).toBe(0);
    const slug = readConfig(configDir).profiles.default?.organization?.slug;
    expect(status.stdout).toBe(
      `Server: ${server.url}\n` +
        `Signed in as: ${carol.user.email} (Test User)\n` +
        "Credential: session from stored session (profile default)\n" +
        `Organization: Carol Co (${slug}, ${org})\n` +
        "Mode: live (default)\n" +
        "Roles: owner\n",
    );
    expect(status.stdout + status.stderr).not.toContain(token);

    const json = await till(["auth", "status", "--json"], { configDir });
    expect(json.exitCode).toBe(0);
    expect(parseJson(json.stdout)).toMatchObject({
      signed_in: true,
      server: server.url,
      profile: "default",
      credential: { kind: "session", source: "profile" },
      api_key_from_env: false,
      user: { id: carol.user.id, email: carol.user.email },
      organization: { id: org, name: "Carol Co" },
      roles: ["owner"],
    });

    const out = await till(["logout"], { configDir });
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stdout).toBe(`Signed out ${carol.user.email} of ${server.url}.\n`);
    expect(await whoamiStatus(token)).toBe(401); // revoked on the server, not only forgotten
    const stored = readConfig(configDir).profiles.default;
    expect(stored).toEqual({ server: server.url }); // the server choice stays for the next login
    expect(statSync(path.join(configDir, "config.json")).mode & 0o777).toBe(0o600);

    const after = await till(["auth", "status"], { configDir });
    expect(after.exitCode).toBe(4);
    expect(after.stderr).toBe("error: not signed in: run `till login` or set TILL_API_KEY\n");
    const afterJson = await till(["auth", "status", "--json"], { configDir });
    expect(afterJson.exitCode).toBe(4);
    expect(afterJson.stdout).toBe("");
    expect(JSON.parse(afterJson.stderr)).toEqual({
      error: { message: "not signed in: run `till login` or set TILL_API_KEY", code: "not_signed_in", hint: null },
    });

    const again = await till(["logout", "--json"], { configDir });
    expect(again.exitCode).toBe(0);
    expect(parseJson(again.stdout)).toEqual({ server: server.url, profile: "default", signed_out: false, revoked: false });
  });

  it("status with an API key: the key's name and id, its organization by name, its scopes and expiry", async () => {
    const org = await createOrganization(alice, "Keyed Co");
    const key = await mustCreateKey(alice, { organizationId: org, name: "deploy", permissions: { products: ["read", "write"], webhooks: ["read"] }, expiresIn: 90 * 86_400 });
    const env = { TILL_API_KEY: key.key, TILL_SERVER: server.url };
    const r = await till(["auth", "status"], { configDir: tempConfigDir(), env });
    expect(r.exitCode, r.stderr).toBe(0);
    const slug = (await alice.client.get<{ id: string; slug: string }[]>("/api/auth/organization/list")).body.find((o) => o.id === org)?.slug;
    const expires = new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10);
    expect(r.stdout).toBe(
      `Server: ${server.url}\n` +
        `Signed in as: the organization API key "deploy" (${key.id})\n` +
        "Credential: API key from TILL_API_KEY\n" +
        `Organization: Keyed Co (${slug}, ${org})\n` +
        "Mode: live (the API key's prefix)\n" +
        "Scopes: products:write, webhooks:read\n" +
        `Expires: ${expires}\n`,
    );
    const json = parseJson<{ api_key: unknown; permissions: unknown }>((await till(["auth", "status", "--json"], { configDir: tempConfigDir(), env })).stdout);
    expect(json.api_key).toEqual({ id: key.id, name: "deploy", expires_at: expect.stringMatching(new RegExp(`^${expires}T`)), organization: { name: "Keyed Co", slug } });
    expect(json.permissions).toEqual({ products: ["read", "write"], webhooks: ["read"] });
  });

  it("already signed in: without a terminal it says so and exits 0; --force signs in again", async () => {
    const configDir = tempConfigDir();
    expect((await login(server.url, alice.client, { configDir })).exitCode).toBe(0);
    const token = readConfig(configDir).profiles.default?.token;
    const again = await till(["login", "--server", server.url], { configDir });
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toBe(`Already signed in to ${server.url} as ${alice.user.email}: nothing to do (\`till login --force\` signs in again).\n`);
    expect(again.stdout).toBe(`Still signed in to ${server.url} as ${alice.user.email}.\n`);
    expect(readConfig(configDir).profiles.default?.token).toBe(token);
    const forced = await login(server.url, alice.client, { configDir }, ["--force"]);
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(readConfig(configDir).profiles.default?.token).not.toBe(token);
    // a session the server no longer accepts is no reason to ask: login starts over by itself
    await new Client(server.url).post("/api/auth/sign-out", {}, { authorization: `Bearer ${readConfig(configDir).profiles.default?.token}` });
    const expired = await login(server.url, alice.client, { configDir });
    expect(expired.exitCode, expired.stderr).toBe(0);
    expect(expired.stderr).not.toContain("Already signed in");
  });

  it("counts the browser as opened only when the system's opener did not fail", async () => {
    const { openBrowser } = await import("../../cli/commands/login.js");
    const saved = { BROWSER: process.env.BROWSER, DISPLAY: process.env.DISPLAY, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY };
    try {
      delete process.env.DISPLAY;
      delete process.env.WAYLAND_DISPLAY;
      delete process.env.BROWSER;
      // no browser on this machine: xdg-open exits 3, so login prints the link to open instead
      expect(await openBrowser("http://127.0.0.1:9/device")).toBe(false);
      process.env.BROWSER = "true";
      expect(await openBrowser("http://127.0.0.1:9/device")).toBe(true);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it("status: a session revoked elsewhere is exit 4 with a hint to log in again", async () => {
    const configDir = tempConfigDir();
    expect((await login(server.url, alice.client, { configDir })).exitCode).toBe(0);
    const token = readConfig(configDir).profiles.default?.token ?? "";
    const signOut = await new Client(server.url).post("/api/auth/sign-out", {}, { authorization: `Bearer ${token}` });
    expect(signOut.status).toBe(200);
    const r = await till(["auth", "status"], { configDir });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toBe(
      "error: the server refused your credentials: The bearer token is not a valid API key or session token.\n" +
        "hint: run `till login` to sign in again\n",
    );
  });

  it("logout still forgets the session when the server is unreachable, with a warning", async () => {
    const configDir = tempConfigDir();
    expect((await login(server.url, alice.client, { configDir })).exitCode).toBe(0);
    const r = await till(["logout", "--server", "http://127.0.0.1:9"], { configDir });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/^warning: cannot reach http:\/\/127\.0\.0\.1:9: .*; the session stays valid on the server until it expires\.\n$/);
    expect(readConfig(configDir).profiles.default?.token).toBeUndefined();
  });
});

describe("till login in a terminal", () => {
  // the bug this guards: at a terminal, login tried the browser before printing anything, and the process
  // ended (exit 0, no session) while the opener ran; piped stdio never tries the browser, so never showed it
  const cases = [
    { name: "no browser at all", browser: null },
    { name: "an opener that fails", browser: 1 },
    { name: "an opener that succeeds", browser: 0 },
  ] as const;
  for (const { name, browser } of cases) {
    it(`prints the code and the link, waits for approval and stores the session: ${name}`, async () => {
      const opener = browser === null ? null : fakeBrowser(browser);
      const configDir = tempConfigDir();
      const child = spawnTillInTerminal(["login", "--server", server.url], { configDir, env: opener?.env ?? {} });
      const [, first, second] = await waitForText(child.stdout, /one-time code: ([A-Z0-9]{4})-([A-Z0-9]{4})/);
      const userCode = `${first}${second}`;
      const link = `${server.url}/device?user_code=${userCode}`;
      await waitForText(child.stdout, /Waiting for you to approve in the browser/);
      await approve(alice.client, userCode);
      const r = await child;
      const screen = screenText(String(r.stdout));
      expect(r.exitCode, screen).toBe(0);
      expect(screen).toContain(link);
      expect(screen).toContain(`or go to ${server.url}/device and enter the code`);
      expect(screen).toContain(`Signed in to ${server.url} as ${alice.user.email}`);
      expect(readConfig(configDir).profiles.default?.token).toMatch(/^[A-Za-z0-9]{32}$/);
      // the opener was asked for the link (xdg-open tries a failing $BROWSER twice)
      if (opener) expect([...new Set(opener.opened())]).toEqual([link]);
      expect(screen.includes("Opened in your browser:")).toBe(browser === 0);
    });
  }

  it("--no-browser never runs the opener", async () => {
    const opener = fakeBrowser(0);
    const configDir = tempConfigDir();
    const child = spawnTillInTerminal(["login", "--server", server.url, "--no-browser"], { configDir, env: opener.env });
    const [, first, second] = await waitForText(child.stdout, /one-time code: ([A-Z0-9]{4})-([A-Z0-9]{4})/);
    await approve(alice.client, `${first}${second}`);
    const r = await child;
    expect(r.exitCode, screenText(String(r.stdout))).toBe(0);
    expect(opener.opened()).toEqual([]);
  });
});

describe("the commands a message names carry this run's --profile and --server", () => {
  it("only the flags the next run needs: --profile (not TILL_PROFILE), --server unless the profile stores it", async () => {
    const configDir = tempConfigDir();
    const [profile, both, fromEnv, json] = await Promise.all([
      till(["--profile", "staging", "orgs", "list"], { configDir }),
      till(["orgs", "list", "--profile", "staging", "--server", `${server.url}/`], { configDir }),
      till(["orgs", "list"], { configDir, env: { TILL_PROFILE: "staging", TILL_SERVER: server.url } }),
      till(["--profile", "staging", "orgs", "list", "--json"], { configDir }),
    ]);
    expect([profile.exitCode, both.exitCode, fromEnv.exitCode, json.exitCode]).toEqual([4, 4, 4, 4]);
    expect(profile.stderr).toBe("error: not signed in: run `till --profile staging login` or set TILL_API_KEY\n");
    expect(both.stderr).toBe(`error: not signed in: run \`till --profile staging --server ${server.url} login\` or set TILL_API_KEY\n`);
    expect(fromEnv.stderr).toBe("error: not signed in: run `till login` or set TILL_API_KEY\n");
    expect(parseJson<{ error: { message: string } }>(json.stderr).error.message).toBe("not signed in: run `till --profile staging login` or set TILL_API_KEY");

    // signed in, the profile stores the server: its hints need --profile only
    const r = await login(server.url, alice.client, { configDir }, ["--profile", "staging"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const again = await till(["login", "--profile", "staging", "--server", server.url], { configDir });
    expect(again.stderr).toContain(`Already signed in to ${server.url} as ${alice.user.email} (profile staging): nothing to do (\`till --profile staging login --force\` signs in again).`);
  });
});
