// The README's quick start, run as written and without a terminal: its three shell blocks are read from
// README.md (so the README cannot drift from what works), block 1 starts the server (`npm install` is done
// already), block 2's commands run in bash before its last line, `till listen`, which runs in the background
// while block 3 buys the product; its output must show the purchase's webhook events. What differs from a
// fresh machine is only the environment: the server on a free port with a data folder of its own (PORT,
// TILL_DATA_DIR), the CLI told that URL (TILL_SERVER), a config folder of its own (TILL_CONFIG_DIR) and the
// password in TILL_PASSWORD (a person types it at the prompt).
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/till-process.js";
import { BIN } from "./till.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The shell blocks of the README's "Quick start" section, each as its command lines (comments dropped). */
function quickStartBlocks(): string[][] {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const section = /\n## Quick start\n([\s\S]*?)\n## /.exec(readme)?.[1];
  if (!section) throw new Error("README.md has no \"## Quick start\" section");
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    (m[1] ?? "")
      .split("\n")
      .map((line) => line.replace(/\s+#.*$/, "").trim())
      .filter((line) => line !== "" && !line.startsWith("#")),
  );
}

const running: ResultPromise[] = [];
afterAll(() => {
  // each was started in a process group of its own (npm → sh → node; bash → npx → node)
  for (const child of running) {
    try {
      if (child.pid) process.kill(-child.pid, "SIGTERM");
    } catch {
      // the group has ended already
    }
  }
});

function waitFor(read: () => string, pattern: RegExp, what: string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = setInterval(() => {
      if (pattern.test(read())) {
        clearInterval(tick);
        resolve();
      } else if (Date.now() - started > ms) {
        clearInterval(tick);
        reject(new Error(`${what}: no ${pattern} within ${ms / 1000} s; got:\n${read()}`));
      }
    }, 100);
  });
}

describe("the README quick start", () => {
  it("signs up, creates an organization, a product and a checkout, pays it, and till listen prints the events", { timeout: 400_000 }, async () => {
    const blocks = quickStartBlocks();
    expect(blocks).toHaveLength(3);
    const [server = [], setup = [], purchase = []] = blocks;
    expect(server).toEqual(["npm install", "npm start"]);
    const listen = setup.at(-1) ?? "";
    expect(listen).toMatch(/^npx till listen\b/);

    const port = await freePort();
    const url = `http://localhost:${port}`;
    const clean: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? os.tmpdir() };
    // `npm start` exactly, on a fresh data folder (the embedded database), as a newcomer's first run
    const start = execa("npm", ["start"], {
      cwd: ROOT,
      env: { ...clean, PORT: String(port), TILL_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "till-quickstart-")) },
      extendEnv: false,
      detached: true,
      reject: false,
      all: true,
    });
    running.push(start);
    let serverLog = "";
    start.all?.on("data", (c: Buffer) => (serverLog += c.toString()));
    await waitFor(() => serverLog, /\n {2}next {6}.*\n/, "npm start", 150_000);

    const cli = {
      ...clean,
      TILL_SERVER: url,
      TILL_CONFIG_DIR: path.join(mkdtempSync(path.join(os.tmpdir(), "till-quickstart-cli-")), "config"),
      TILL_PASSWORD: "correct horse battery staple",
      // npx finds this checkout's own `till`; nothing is fetched
      npm_config_offline: "true",
    };
    const bash = (lines: string[]) =>
      execa("bash", ["-c", ["set -euo pipefail", ...lines].join("\n")], { cwd: ROOT, env: cli, extendEnv: false, reject: false, timeout: 150_000 });

    const first = await bash(setup.slice(0, -1));
    expect(first.exitCode, `${first.stdout}\n${first.stderr}`).toBe(0);
    expect(first.stdout).toContain(`Created the account you@example.com and signed in to ${url}.`);
    expect(first.stdout).toMatch(/Created organization Acme Inc \(acme-inc, [0-9a-f-]{36}\)\. It is now your active organization/);
    expect(first.stdout).toContain("Sandbox on for profile default");

    const listener = execa("bash", ["-c", listen], { cwd: ROOT, env: cli, extendEnv: false, detached: true, reject: false });
    running.push(listener);
    let heard = "";
    let said = "";
    listener.stdout?.on("data", (c: Buffer) => (heard += c.toString()));
    listener.stderr?.on("data", (c: Buffer) => (said += c.toString()));
    await waitFor(() => said, /Ready: printing sandbox events/, "till listen", 60_000);

    const bought = await bash(purchase);
    expect(bought.exitCode, `${bought.stdout}\n${bought.stderr}`).toBe(0);
    expect(bought.stdout).toMatch(/^Paid checkout [0-9a-f-]{36} in the sandbox: \$19\.99 for E-book with the test card ending 4242; order [0-9a-f-]{36}\.\n?$/);
    const orderId = /order ([0-9a-f-]{36})/.exec(bought.stdout)?.[1];

    await waitFor(() => heard, /order\.paid/, "till listen's events", 60_000);
    for (const type of ["checkout.created", "order.created", "order.paid"]) expect(heard).toContain(type);
    process.kill(-listener.pid!, "SIGINT");
    await listener;

    // the order is the sandbox's: live has none
    const run = (args: string[]) => execa("node", [BIN, ...args], { env: cli, extendEnv: false, reject: false });
    const sandboxOrders = await run(["orders", "list", "--json"]);
    expect((JSON.parse(sandboxOrders.stdout) as { id: string; total_amount: number }[]).map((o) => [o.id, o.total_amount])).toEqual([[orderId, 1999]]);
    const liveOrders = await run(["orders", "list", "--json", "--live"]);
    expect(JSON.parse(liveOrders.stdout)).toEqual([]);
  });
});
