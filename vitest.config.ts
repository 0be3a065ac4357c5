import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts", "tests/**/*.test.tsx"],
    // builds web/dist when the web app's sources changed (the e2e tests load it in Chromium)
    globalSetup: ["tests/e2e/global-setup.ts"],
    testTimeout: 30_000,
    // A setup hook's time is mostly its test servers' fresh databases: on PostgreSQL a CREATE DATABASE and
    // the migrations, about 0.2 s of CPU; on PGlite (no DATABASE_URL) initdb and the migrations in
    // WebAssembly, 6–9 s of CPU (Node 24–20) per server, so a hook starting one or two takes minutes when a
    // worker gets a fraction of a CPU (measured at a load of 20 on 2 CPUs: 25–34 s for one database).
    hookTimeout: process.env.DATABASE_URL ? 60_000 : 180_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
