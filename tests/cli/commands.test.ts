// `till orgs`, `till keys`, `till api`, CI mode, exit codes and output modes, end to end: the CLI runs as
// a child process (signed in through the device flow once) against the real server on a loopback port.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { person, type Person } from "../auth/key-fixtures.js";
import { login, parseJson, spawnTill, tempConfigDir, till, TRACE_HOOK, type TillOptions } from "./till.js";

let server: TestServer;
let dana: Person;
/** Dana's signed-in CLI. */
let cli: TillOptions;
let acme: { id: string; slug: string };

interface Org {
  id: string;
  name: string;
  slug: string;
  active: boolean;
}

interface NewKey {
  id: string;
  name: string;
  key: string;
  organization_id: string;
  permissions: Record<string, string[]> | null;
  expires_at: string | null;
  created_at: string;
}

beforeAll(async () => {
  server = await startServer();
  dana = await person(server, "dana");
  cli = { configDir: tempConfigDir() };
  const r = await login(server.url, dana.client, cli);
  if (r.exitCode !== 0) throw new Error(`login failed: ${r.stderr}`);
  const created = await till(["orgs", "create", "Acme Inc", "--json"], cli);
  if (created.exitCode !== 0) throw new Error(`orgs create failed: ${created.stderr}`);
  acme = parseJson(created.stdout);
});
afterAll(async () => server?.close());

const whoami = (token: string) =>
  new Client(server.url).get<{ kind: string; organization_id: string; permissions: Record<string, string[]> }>("/api/whoami", {
    authorization: `Bearer ${token}`,
  });

describe("till orgs", () => {
  it("create: derives the slug, makes the new organization active; JSON and plain output", async () => {
    expect(acme).toMatchObject({ name: "Acme Inc", slug: "acme-inc", active: true });
    // the server's request helper has this session cached with Acme active...
    expect(parseJson((await till(["auth", "status", "--json"], cli)).stdout)).toMatchObject({ organization: { id: acme.id } });
    const plain = await till(["orgs", "create", "Beta Shop", "--slug", `beta-${Date.now()}`], cli);
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^Created organization Beta Shop \(beta-\d+, ([0-9a-f-]{36})\)\. It is now your active organization: commands act on it\.\n$/);
    const beta = /([0-9a-f-]{36})\)\./.exec(plain.stdout)?.[1];
    // ...and /v1 calls follow the new active organization at once, not after the cache expires
    const status = await till(["auth", "status", "--json"], cli);
    expect(parseJson(status.stdout)).toMatchObject({ organization: { id: beta } });
  });

  it("create: a taken slug is the server's error, exit 1", async () => {
    const r = await till(["orgs", "create", "Acme Inc"], cli);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe("error: Organization already exists\n");
  });

  it("list: JSON marks the active organization; a pipe gets tab-separated rows", async () => {
    const json = await till(["orgs", "list", "--json"], cli);
    expect(json.exitCode).toBe(0);
    const orgs = parseJson<Org[]>(json.stdout);
    expect(orgs.map((o) => o.name)).toEqual(["Acme Inc", "Beta Shop"]);
    expect(orgs.filter((o) => o.active).map((o) => o.name)).toEqual(["Beta Shop"]);

    const plain = await till(["orgs", "list"], cli);
    expect(plain.stdout).toBe(orgs.map((o) => `${o.active ? "*" : ""}\t${o.name}\t${o.slug}\t${o.id}`).join("\n") + "\n");
  });

  it("switch: by slug or id; /v1 calls follow the active organization", async () => {
    const r = await till(["orgs", "switch", "acme-inc"], cli);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("Switched to Acme Inc (acme-inc).\n");
    const stored = JSON.parse(readFileSync(path.join(cli.configDir, "config.json"), "utf8")) as {
      profiles: { default: { organization: unknown } };
    };
    expect(stored.profiles.default.organization).toEqual({ id: acme.id, name: "Acme Inc", slug: "acme-inc" });
    const org = await till(["api", "GET", `/v1/organizations/${acme.id}`, "--json"], cli);
    expect(parseJson(org.stdout)).toMatchObject({ id: acme.id, slug: "acme-inc" });

    const byId = await till(["orgs", "switch", acme.id, "--json"], cli);
    expect(parseJson(byId.stdout)).toEqual({ id: acme.id, name: "Acme Inc", slug: "acme-inc", active: true });
    // by name too; an unknown one names those that exist (exit 2, nothing changed)
    const byName = await till(["orgs", "switch", "acme inc"], cli);
    expect(byName.stdout).toBe("Switched to Acme Inc (acme-inc).\n");
    const unknown = await till(["orgs", "switch", "no-such-org"], cli);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/^error: <org>: you have no organization "no-such-org"\nhint: yours: (.+ \(.+\), )*acme-inc \(Acme Inc\)(, .+)*\n$/);
  });
});

describe("till keys", () => {
  it("create → list → the key works against /api/whoami → revoke → it no longer does", async () => {
    const created = await till(
      ["keys", "create", "deploy", "--scope", "products:read", "--scope", "products:write", "--scope", "organizations:read", "--expires", "30d", "--json"],
      cli,
    );
    expect(created.exitCode, created.stderr).toBe(0);
    const key = parseJson<NewKey>(created.stdout);
    expect(key).toMatchObject({
      name: "deploy",
      organization_id: acme.id,
      permissions: { products: ["read", "write"], organizations: ["read"] },
    });
    expect(key.key).toMatch(/^till_/);
    const lifetime = new Date(key.expires_at ?? 0).getTime() - new Date(key.created_at).getTime();
    expect(Math.round(lifetime / 1000)).toBe(30 * 86_400);

    const who = await whoami(key.key);
    expect(who.status).toBe(200);
    expect(who.body).toMatchObject({ kind: "api_key", organization_id: acme.id });
    expect(who.body.permissions).toEqual({ products: ["read", "write"], organizations: ["read"] });

    const list = await till(["keys", "list", "--json"], cli);
    const listed = parseJson<{ id: string; name: string; start: string; key?: string }[]>(list.stdout);
    const row = listed.find((k) => k.id === key.id);
    expect(row).toMatchObject({ name: "deploy" });
    expect(row?.key).toBeUndefined(); // only the first characters are ever listed
    expect(list.stdout).not.toContain(key.key);
    const plain = await till(["keys", "list"], cli);
    expect(plain.stdout).toContain(`${key.id}\tdeploy\t${key.key.slice(0, 14)}…\tproducts:read+write organizations:read\t${key.expires_at?.slice(0, 10)}\t`);

    const revoked = await till(["keys", "revoke", key.id], cli);
    expect(revoked.exitCode, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe(`Revoked key ${key.id}.\n`);
    expect((await whoami(key.key)).status).toBe(401);
    const again = await till(["keys", "revoke", key.id, "--json"], cli);
    expect(again.exitCode).toBe(1);
    expect(JSON.parse(again.stderr)).toEqual({
      error: { message: "API Key not found", code: "KEY_NOT_FOUND", hint: null },
    });
  });

  it("create without --json on a pipe prints the key alone on stdout (once), the note on stderr", async () => {
    const r = await till(["keys", "create", "ci", "--org", "acme-inc"], cli);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^till_live_[A-Za-z0-9]+\n$/);
    expect(r.stderr).toMatch(/^Created key ci \([0-9a-f-]{36}\)\. Copy it now: it will not be shown again\.\n$/);
    // no --scope: every billing scope of the organization
    const who = await whoami(r.stdout.trim());
    expect(who.body.permissions.products).toEqual(["read", "write"]);
    expect(who.body.organization_id).toBe(acme.id);
  });

  it("rejects malformed --scope and --expires before sending anything: exit 2, one line", async () => {
    const scope = await till(["keys", "create", "x", "--scope", "product:read"], cli);
    expect(scope.exitCode).toBe(2);
    expect(scope.stderr).toBe(
      "error: option '--scope <resource:action>' argument 'product:read' is invalid. expected <resource>:<read|write> with a resource among " +
        "organizations, products, benefits, discounts, custom_fields, meters, events, customers, customer_sessions, " +
          "customer_seats, files, checkouts, checkout_links, orders, subscriptions, refunds, webhooks, license_keys, metrics, entitlements.\n",
    );
    const expires = await till(["keys", "create", "x", "--expires", "3x"], cli);
    expect(expires.exitCode).toBe(2);
    expect(expires.stderr).toBe(
      "error: option '--expires <duration>' argument '3x' is invalid. expected a duration such as 90d, 12h or 1y.\n",
    );
  });

  it("a lifetime the server refuses is its error, exit 1", async () => {
    const r = await till(["keys", "create", "short", "--expires", "12h"], cli);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe("error: The expiresIn is smaller than the predefined minimum value.\n");
  });

  it("needs a signed-in user: with an API key it is exit 4 with the reason", async () => {
    const key = parseJson<NewKey>((await till(["keys", "create", "k", "--json"], cli)).stdout).key;
    const r = await till(["keys", "list"], { ...cli, env: { TILL_API_KEY: key } });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toBe(
      "error: this command needs a signed-in user, and TILL_API_KEY is an organization API key\n" +
        "hint: run `till login` and try again without TILL_API_KEY\n",
    );
  });
});

describe("till api", () => {
  it("GET prints the response JSON; POST sends -d inline, @file and @-", async () => {
    const get = await till(["api", "GET", "/v1/organizations/"], cli);
    expect(get.exitCode, get.stderr).toBe(0);
    const page = parseJson<{ items: { id: string }[] }>(get.stdout);
    expect(page.items.map((o) => o.id)).toContain(acme.id);

    const inline = await till(["api", "post", "/v1/products/", "-d", JSON.stringify({ name: "Inline", prices: [{ amount_type: "free" }] })], cli);
    expect(inline.exitCode, inline.stderr).toBe(0);
    expect(parseJson(inline.stdout)).toMatchObject({ name: "Inline", organization_id: acme.id });

    const file = path.join(os.tmpdir(), `till-body-${process.pid}.json`);
    writeFileSync(file, JSON.stringify({ name: "From file", prices: [{ amount_type: "free" }] }));
    const fromFile = await till(["api", "POST", "/v1/products/", "-d", `@${file}`, "--json"], cli);
    expect(parseJson(fromFile.stdout)).toMatchObject({ name: "From file" });

    const fromStdin = await till(["api", "POST", "/v1/products/", "--data", "@-"], {
      ...cli,
      input: JSON.stringify({ name: "From stdin", prices: [{ amount_type: "free" }] }),
    });
    expect(fromStdin.exitCode, fromStdin.stderr).toBe(0);
    expect(parseJson(fromStdin.stdout)).toMatchObject({ name: "From stdin" });
  });

  it("non-2xx: the server's error on stderr, nothing on stdout; exit 1, or 2 for a refused body", async () => {
    const r = await till(["api", "GET", "/v1/products/00000000-0000-4000-8000-000000000000"], cli);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("error: Product not found\n");
    const json = await till(["api", "POST", "/v1/products/", "-d", "{}", "--json"], cli);
    expect(json.exitCode).toBe(2);
    expect(json.stdout).toBe("");
    const envelope = JSON.parse(json.stderr) as { error: { message: string; code: string; hint: null } };
    expect(envelope.error.code).toBe("RequestValidationError");
    expect(envelope.error.message).toMatch(/^name: is required/);
    // --debug names the request and the server's request id, in the envelope too
    const debug = await till(["api", "POST", "/v1/products/", "-d", "{}", "--json", "--debug"], cli);
    const lines = debug.stderr.trim().split("\n");
    expect(lines[0]).toMatch(/^POST \/v1\/products\/ → 422 \(\d+ ms, request id [0-9a-f-]{36}\)$/);
    expect(JSON.parse(lines[1]!)).toMatchObject({ error: { request: { method: "POST", path: "/v1/products/", status: 422, request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) } } });
  });

  it("malformed arguments are exit 2 with one line naming the argument", async () => {
    const method = await till(["api", "FETCH", "/v1/products/"], cli);
    expect(method.exitCode).toBe(2);
    expect(method.stderr).toBe(
      "error: command-argument value 'FETCH' is invalid for argument 'method'. expected one of GET, POST, PUT, PATCH, DELETE.\n",
    );
    const p = await till(["api", "GET", "v1/products/"], cli);
    expect(p.exitCode).toBe(2);
    expect(p.stderr).toBe(
      "error: command-argument value 'v1/products/' is invalid for argument 'path'. expected a path on the server starting with /, such as /v1/products/.\n",
    );
    const data = await till(["api", "POST", "/v1/products/", "-d", "{name:"], cli);
    expect(data.exitCode).toBe(2);
    expect(data.stderr).toMatch(/^error: -d: expected JSON, @file or @- \(.+\)\n$/);
    const missing = await till(["api", "GET"], cli);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe("error: missing required argument 'path'\n");
  });
});

describe("CI and credentials", () => {
  it("TILL_API_KEY and TILL_SERVER take precedence over the stored profile", async () => {
    const key = parseJson<NewKey>((await till(["keys", "create", "ci-env", "--json"], cli)).stdout).key;
    const empty = tempConfigDir();
    const env = { CI: "true", TILL_API_KEY: key, TILL_SERVER: server.url };
    const r = await till(["api", "GET", "/v1/organizations/", "--json"], { configDir: empty, env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(parseJson<{ items: { id: string }[] }>(r.stdout).items.map((o) => o.id)).toEqual([acme.id]);

    const status = await till(["auth", "status", "--json"], { configDir: empty, env });
    expect(parseJson(status.stdout)).toMatchObject({
      credential: { kind: "api_key", source: "env" },
      api_key_from_env: true,
      user: null,
      organization: { id: acme.id },
    });
    // the env key wins over a stored session too
    const over = await till(["auth", "status", "--json"], { ...cli, env: { TILL_API_KEY: key } });
    expect(parseJson(over.stdout)).toMatchObject({ credential: { kind: "api_key", source: "env" } });
    expect(status.stdout + status.stderr + over.stdout + over.stderr).not.toContain(key);
  });

  it("CI without credentials never waits: exit 4 with the actionable message", async () => {
    const r = await till(["api", "GET", "/v1/products/"], { configDir: tempConfigDir(), env: { CI: "1", TILL_SERVER: server.url } });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("error: not signed in: run `till login` or set TILL_API_KEY\n");
  });

  it("a refused TILL_API_KEY is exit 4 naming the variable", async () => {
    const env = { TILL_API_KEY: "till_not-a-real-key", TILL_SERVER: server.url };
    const r = await till(["api", "GET", "/v1/products/"], { configDir: tempConfigDir(), env });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toBe(
      "error: the server refused your credentials: The bearer token is not a valid API key or session token.\n" +
        "hint: TILL_API_KEY was refused: check that the key exists, is enabled and has not expired\n",
    );
  });

  it("--api-key works but warns that the secret is visible, and never echoes it", async () => {
    const key = parseJson<NewKey>((await till(["keys", "create", "flag", "--json"], cli)).stdout).key;
    const r = await till(["--api-key", key, "--server", server.url, "auth", "status"], { configDir: tempConfigDir() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe("warning: --api-key puts the key in your shell history and process list; prefer TILL_API_KEY.\n");
    expect(r.stdout).toContain("Credential: API key from --api-key\n");
    expect(r.stdout + r.stderr).not.toContain(key);
  });
});

describe("usage, help and output modes", () => {
  it("an unknown flag or command is exit 2 with one line", async () => {
    const flag = await till(["orgs", "list", "--jsn"], cli);
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toBe("error: unknown option '--jsn' (Did you mean --json?)\n");
    const json = await till(["orgs", "list", "--bogus", "--json"], cli);
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({ error: { message: "unknown option '--bogus'", code: "usage", hint: null } });
    const command = await till(["nope"], cli);
    expect(command.exitCode).toBe(2);
    expect(command.stderr).toBe("error: unknown command 'nope' (Did you mean open?)\n"); // commander's suggestion: `till open` is one edit away
    const server = await till(["auth", "status", "--server", "ftp://x"], cli);
    expect(server.exitCode).toBe(2);
    expect(server.stderr).toBe('error: --server: expected an http(s) URL such as http://localhost:3000, got "ftp://x"\n');
    const profile = await till(["auth", "status", "--profile", "a.b"], cli);
    expect(profile.exitCode).toBe(2);
    expect(profile.stderr).toBe('error: --profile: expected letters, digits, "-" or "_" (at most 64), got "a.b"\n');
    const group = await till(["orgs"], cli);
    expect(group.exitCode).toBe(2);
    expect(group.stderr).toContain("Usage: till orgs [options] [command]");
  });

  it("--help on every command shows examples, exit 0", async () => {
    const commands = [
      [], ["login"], ["logout"], ["auth"], ["auth", "status"], ["orgs"], ["orgs", "list"], ["orgs", "create"],
      ["orgs", "switch"], ["keys"], ["keys", "create"], ["keys", "list"], ["keys", "revoke"], ["api"],
    ];
    const results = await Promise.all(commands.map((c) => till([...c, "--help"], { configDir: tempConfigDir() })));
    results.forEach((r, i) => {
      expect(r.exitCode, commands[i]?.join(" ")).toBe(0);
      expect(r.stdout, commands[i]?.join(" ")).toContain("\nExamples:\n  $ till ");
      expect(r.stdout).toContain("--json");
    });
    const version = await till(["--version"], { configDir: tempConfigDir() });
    expect(version.stdout).toBe("0.1.0\n");
  });

  it("--json and --help never load Ink or React; a terminal rendering does", async () => {
    const trace = (name: string) => path.join(os.tmpdir(), `till-trace-${process.pid}-${name}.txt`);
    const run = async (name: string, args: string[], env: Record<string, string> = {}) => {
      const file = trace(name);
      writeFileSync(file, "");
      const r = await till(args, { ...cli, nodeArgs: ["--import", TRACE_HOOK], env: { TILL_TRACE_FILE: file, ...env } });
      expect(r.exitCode, r.stderr).toBe(0);
      return readFileSync(file, "utf8").split("\n");
    };
    // Ink and React from node_modules, or bundled into the CLI's Ink screens (dist/cli/ui-*)
    const loadsUi = (urls: string[]) => urls.some((u) => /\/node_modules\/(ink|react|ink-spinner)\/|\/dist\/cli\/ui-/.test(u));

    const json = await run("json", ["orgs", "list", "--json"]);
    expect(json.some((u) => u.endsWith("/bin/till.js"))).toBe(true); // the trace sees CommonJS modules (the bundle's require()s)
    expect(loadsUi(json)).toBe(false);
    expect(loadsUi(await run("help", ["keys", "create", "--help"]))).toBe(false);
    expect(loadsUi(await run("api", ["api", "GET", "/v1/organizations/", "--json"]))).toBe(false);
    expect(loadsUi(await run("pipe", ["orgs", "list"]))).toBe(false);
    const tty = await run("tty", ["orgs", "list"], { TILL_FORCE_TTY: "1" });
    expect(tty.some((u) => /\/dist\/cli\/ui-index-[^/]+\.js$/.test(u))).toBe(true); // the bundle's Ink screen, not the sources
    expect(loadsUi(tty)).toBe(true);
  });

  it("on a terminal: an Ink table, colourless with NO_COLOR", async () => {
    const r = await till(["orgs", "list"], { ...cli, env: { TILL_FORCE_TTY: "1", NO_COLOR: "1" } });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    // columns as wide as their widest cell plus two spaces; the active-organization marker first
    expect(lines[0]).toMatch(/^ {3}NAME +SLUG +ID$/);
    expect(lines.some((l) => /^\* {2}Acme Inc +acme-inc +[0-9a-f-]{36}$/.test(l))).toBe(true);
    expect(lines[0]?.indexOf("ID")).toBe(lines[1]?.search(/[0-9a-f]{8}-/));
    expect(r.stdout).not.toContain("\u001B[");
  });

  it("a piped stdout gets the key record as plain text and no colour", async () => {
    const child = spawnTill(["auth", "status"], cli);
    const r = await child;
    expect(String(r.stdout)).not.toContain("\u001B[");
    expect(String(r.stdout)).toContain(`Server: ${server.url}\n`);
  });
});
