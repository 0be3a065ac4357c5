import { defineConfig } from "vitest/config";
import { leftOutLine, missingTestTools } from "./scripts/test-prereqs.js";
import { LongestFirstSequencer } from "./scripts/test-sequencer.js";

// Chromium, zsh, fish and PgBouncer: `npm test` installs them first where it can (scripts/test-prereqs.ts); the tests
// that need one still missing are left out, said in one line (TILL_TEST_ALL=1, as in .ci/run: none left out).
const missing = process.env.TILL_TEST_ALL === "1" ? [] : missingTestTools();
if (missing.length > 0) console.log(leftOutLine(missing));

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts", "tests/**/*.test.tsx"],
    exclude: [
      "**/node_modules/**",
      ...(missing.includes("chromium") ? ["tests/e2e/**"] : []),
      ...(missing.includes("pgbouncer") ? ["tests/api/pgbouncer.test.ts"] : []),
    ],
    // the shell-completion tests read which shells are missing (tests/cli/completion.test.ts); the servers
    // that tests start as processes pay live checkouts with the test card, as startServer's do
    env: { TILL_TEST_MISSING: missing.join(" "), TILL_TEST_PAYMENTS: "live" },
    // builds web/dist when the web app's sources changed (the e2e tests load it in Chromium)
    globalSetup: ["tests/e2e/global-setup.ts"],
    // A test's bound is for a hang too: the first test of a page file (Chromium starting, the first page's
    // scripts compiled) took 43 s on a machine at a load of 13 on 2 CPUs (about 13 s on its retry)
    testTimeout: 60_000,
    // A setup hook's bound is for a hook that hangs, not a speed check. Its time is mostly its test servers'
    // fresh databases and the users it signs up (scrypt): on PostgreSQL a CREATE DATABASE and the migrations
    // cost about 0.2 s of CPU, on PGlite (no DATABASE_URL) initdb and the migrations in WebAssembly 6–9 s
    // (Node 24–20) per server; on a machine whose load is 20–25 on 2 CPUs (measured) a worker gets a small
    // part of a CPU, and hooks took 60–115 s (PostgreSQL: starting a server and signing users up; PGlite: 25–34 s
    // for one database alone).
    hookTimeout: 180_000,
    // expect.poll waits for what a page or the worker will show; its default second is shorter than one
    // render or job on a machine at a load of 20 (a failure seen in CI), so it waits up to 20 s, checked often
    expect: { poll: { timeout: 20_000, interval: 100 } },
    // the longest files start first (tests/durations.json): a long file started last ran alone at the end
    sequence: { sequencer: LongestFirstSequencer },
    pool: "forks",
    maxWorkers: 2,
    // A worker keeps the modules it loaded from one test file to the next instead of importing the server, the
    // SDKs and better-auth again for each file (that import was half of a file's time on PostgreSQL). Test files
    // restore what they change in the process (environment variables, fake timers); each server has its own
    // database, ports and mailbox, so nothing else carries over.
    isolate: false,
    // transformed modules kept on disk (node_modules/.experimental-vitest-cache, keyed by each file's content and
    // the configuration): a second run, or the smoke runs beside the suite in CI, skips the transforms
    experimental: { fsModuleCache: true },
  },
});
