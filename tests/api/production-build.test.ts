// The production build: `npm run build:server` bundles the server into dist/server (scripts/build-server.mjs),
// and `NODE_ENV=production npm start` runs that bundle against a database with no TypeScript loader in the
// process. What the process loaded is read from inside it (tests/helpers/loaded-scripts.mjs: every script V8
// compiled, through the inspector), after it has answered /healthz, sent a sign-up's mail and served /v1 calls.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Polar } from "@polar-sh/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, uniqueEmail } from "../helpers/client.js";
import { freshDatabase } from "../helpers/db.js";
import { Mailbox } from "../helpers/mailbox.js";
import { freePort, START_TIMEOUT_MS } from "../helpers/till-process.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PROBE = path.join(ROOT, "tests", "helpers", "loaded-scripts.mjs");
const run = promisify(execFile);

/** A TypeScript loader or compiler: tsx, the esbuild it transforms with, or TypeScript itself. */
const COMPILER = /\/node_modules\/(tsx|esbuild|typescript|@esbuild)\//;

interface Loaded {
  pid: number;
  execArgv: string[];
  nodeOptions: string;
  urls: string[];
}

/** Asks the process for what it has loaded (SIGUSR2 to the probe) and waits for the file it writes. */
async function loadedBy(pid: number, out: string): Promise<Loaded> {
  process.kill(pid, "SIGUSR2");
  const file = `${out}.${pid}.json`;
  await expect.poll(() => existsSync(file)).toBe(true);
  return JSON.parse(readFileSync(file, "utf8")) as Loaded;
}

/** The environment a fresh machine gives `npm start`, without what the test runner sets. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  for (const name of ["NODE_ENV", "NODE_OPTIONS", "HOST", "SMTP_URL", "DATABASE_URL", "TILL_BASE_URL", "TILL_LOG_FORMAT", "TILL_TEST_PAYMENTS", "VITEST"]) delete env[name];
  return env;
}

const children: ChildProcess[] = [];
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((r) => child.once("exit", r));
  process.kill(-child.pid, "SIGTERM");
  await exited;
}

describe("the production build", () => {
  const mailbox = new Mailbox();
  let smtpUrl: string;
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), "till-loaded-")), "loaded");

  beforeAll(async () => {
    smtpUrl = await mailbox.start();
    // on PostgreSQL a database of its own; on PGlite the server makes its embedded one (initdb, the migrations)
    if (process.env.DATABASE_URL) database = await freshDatabase();
    const built = await run(process.execPath, ["scripts/build-server.mjs"], { cwd: ROOT });
    expect(built.stdout).toMatch(/^server built into dist\/server\/main\.js/);
  });
  afterAll(async () => {
    for (const child of children.splice(0)) await stop(child);
    await mailbox.stop();
    await database?.close();
  });

  it("NODE_ENV=production npm start serves /healthz, mail and /v1 with no TypeScript loader loaded", { timeout: START_TIMEOUT_MS + 60_000 }, async () => {
    expect(existsSync(path.join(ROOT, "web", "dist", "index.html")), "web/dist is built by vitest's global setup").toBe(true);
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {
      ...cleanEnv(),
      NODE_ENV: "production",
      NODE_OPTIONS: `--import=${PROBE}`,
      TILL_LOADED_SCRIPTS: out,
      PORT: String(port),
      HOST: "127.0.0.1",
      TILL_BASE_URL: baseUrl,
      TILL_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "till-prod-")),
      TILL_AUTH_SECRET: "production-build-test-".padEnd(40, "x"),
      SMTP_URL: smtpUrl,
      TILL_RATE_LIMIT: "false",
      ...(database?.url ? { DATABASE_URL: database.url } : {}),
    };
    const child = spawn("npm", ["start"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    children.push(child);
    let output = "";
    child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    // the JSON log's "listening" line names the server process
    const pid = await Promise.race([
      expect.poll(() => /"pid":(\d+)[^\n]*Server listening/.exec(output)?.[1], { timeout: START_TIMEOUT_MS }).toBeDefined().then(() => Number(/"pid":(\d+)[^\n]*Server listening/.exec(output)?.[1])),
      exited.then(() => {
        throw new Error(`npm start exited:\n${output}`);
      }),
    ]);
    // the banner follows Fastify's own "listening" line: waited for, not assumed to be there already
    await expect.poll(() => output.includes(`till is listening on ${baseUrl}`), { timeout: 30_000 }).toBe(true);

    const health = await fetch(`${baseUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    // the web app from web/dist, found from the bundle
    const page = await fetch(`${baseUrl}/sign-in`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<div id="root">/);

    // a seller: the verification mail rendered and sent, an organization, then /v1 through the SDK
    const client = new Client(baseUrl);
    const email = uniqueEmail("prod");
    const { token } = await client.signUp(email);
    const mail = await mailbox.waitFor(email, /./, 20_000);
    expect(mail.links.some((l) => l.startsWith(baseUrl))).toBe(true);
    const org = await client.post<{ id: string }>("/api/auth/organization/create", { name: "Prod build", slug: `prod-${Date.now().toString(36)}` });
    expect(org.status).toBe(200);
    expect((await client.post("/api/auth/organization/set-active", { organizationId: org.body.id })).status).toBe(200);
    const sdk = new Polar({ accessToken: token, serverURL: baseUrl });
    const product = await sdk.products.create({ name: "E-book", prices: [{ amountType: "fixed", priceAmount: 1900, priceCurrency: "usd" }] });
    expect((await sdk.products.get({ id: product.id })).name).toBe("E-book");

    const loaded = await loadedBy(pid, out);
    const files = loaded.urls.filter((u) => u.startsWith("file://"));
    expect(files).toContain(`file://${path.join(ROOT, "dist", "server", "main.js")}`);
    expect(files.filter((u) => u.startsWith(`file://${path.join(ROOT, "server")}/`))).toEqual([]);
    expect(files.filter((u) => COMPILER.test(u) || u.endsWith(".ts") || u.endsWith(".tsx"))).toEqual([]);
    expect(loaded.execArgv).toEqual([]);
    expect(loaded.nodeOptions).toBe(`--import=${PROBE}`);
    await stop(child);
  });

  it("the probe sees tsx in a process that loads it (so its silence above means something)", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "till-tsx-"));
    const script = path.join(dir, "wait.ts");
    writeFileSync(script, 'const said: string = "waiting";\nconsole.log(said);\nsetInterval(() => {}, 1000);\n');
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      cwd: ROOT,
      env: { ...cleanEnv(), NODE_OPTIONS: `--import=${PROBE}`, TILL_LOADED_SCRIPTS: out },
      stdio: ["ignore", "pipe", "inherit"],
      detached: true,
    });
    children.push(child);
    let said = "";
    child.stdout!.on("data", (c: Buffer) => (said += c.toString()));
    await expect.poll(() => said).toContain("waiting");
    const loaded = await loadedBy(child.pid!, out);
    expect(loaded.urls.some((u) => /\/node_modules\/tsx\//.test(u))).toBe(true);
    expect(loaded.execArgv).toEqual(["--import", "tsx"]);
    await stop(child);
  });

  it("production npm start runs a build older than its sources, and says so in one line", async () => {
    // a checkout whose build (a stand-in main.js) was made before server/a.ts changed
    const root = mkdtempSync(path.join(os.tmpdir(), "till-stale-"));
    for (const dir of ["scripts", "dist/server", "web/dist", "server"]) mkdirSync(path.join(root, dir), { recursive: true });
    copyFileSync(path.join(ROOT, "scripts", "start.mjs"), path.join(root, "scripts", "start.mjs"));
    writeFileSync(path.join(root, "dist", "server", "main.js"), 'console.log("the build runs");\n');
    writeFileSync(path.join(root, "web", "dist", "index.html"), "<!doctype html>\n");
    writeFileSync(path.join(root, "server", "a.ts"), "export const a = 2;\n");
    const manifest = { entry: "main.js", inputs: { "server/a.ts": [1, 20], "server/gone.ts": [1, 20] } };
    writeFileSync(path.join(root, "dist", "server", "manifest.json"), JSON.stringify(manifest));
    const result = await run(process.execPath, [path.join(root, "scripts", "start.mjs")], { cwd: root, env: { ...cleanEnv(), NODE_ENV: "production" } });
    expect(result.stdout).toBe("the build runs\n");
    // a source the checkout no longer has (a production install without sources) is not a change
    expect(result.stderr).toMatch(/^till: starting the build of \S+, older than its sources \(server\/a\.ts changed\): `npm run build` to run them\n$/);
  });

  it("production npm start without a build says so in one line and exits 1", async () => {
    // a checkout with scripts/start.mjs and nothing built
    const root = mkdtempSync(path.join(os.tmpdir(), "till-nobuild-"));
    mkdirSync(path.join(root, "scripts"));
    copyFileSync(path.join(ROOT, "scripts", "start.mjs"), path.join(root, "scripts", "start.mjs"));
    const result = await run(process.execPath, [path.join(root, "scripts", "start.mjs")], { cwd: root, env: { ...cleanEnv(), NODE_ENV: "production" } }).then(
      () => ({ code: 0, stderr: "" }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "till: no production build (dist/server/main.js and web/dist/index.html missing): run `npm run build` first, then `NODE_ENV=production npm start`\n",
    );
  });
});
