// Entry point: read config → open the database (migrations run there) → build the app → listen.
import path from "node:path";
import { ConfigError, loadConfig } from "./config.js";
import { openDatabase } from "./db/client.js";
import { createMailer } from "./mail/mailer.js";
import { loadOrCreateSecret } from "./secret.js";
import { buildApp } from "./app.js";
import { startSchedules } from "./jobs/schedules.js";
import { serverPaymentProcessor } from "./payments/index.js";
import { startupBanner } from "./banner.js";
import { installProcessGuard } from "./process-guard.js";
import { refuseUnsafeProduction } from "./production-checks.js";
import { DataDirBusyError, lockDataDir } from "../shared/data-dir-lock.js";
import pkg from "../package.json" with { type: "json" };

async function main(): Promise<void> {
  const config = loadConfig();
  refuseUnsafeProduction(config);
  // the embedded database is this process's alone (two processes on one PGlite directory corrupt it)
  if (!config.databaseUrl) lockDataDir(config.dataDir, `the till server (${config.baseURL})`);
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : path.join(config.dataDir, "pglite"),
    directUrl: config.databaseDirectUrl,
    replicaUrls: config.replicas.urls,
    replicaMaxLagMs: config.replicas.maxLagMs,
  });
  const secret = loadOrCreateSecret(config.dataDir, config.authSecret);
  const mailer = createMailer({
    smtpUrl: config.mail.smtpUrl,
    from: config.mail.from,
    mailDir: path.join(config.dataDir, "mail"),
    log: (line) => console.log(`[mail] ${line}`),
    development: config.development,
  });
  const { app, worker, readiness } = await buildApp({ config, database, mailer, secret, logger: true });
  app.addHook("onClose", async () => database.close());
  await app.listen({ port: config.port, host: config.host });
  await worker.start();
  // renewals at period end (claimed with SKIP LOCKED: every replica may run them)
  const schedules = startSchedules({
    db: database.db,
    processor: serverPaymentProcessor(config, secret),
    baseURL: config.baseURL,
    log: app.log,
    concurrency: config.renewalConcurrency,
  });
  console.log(startupBanner(config, mailer.transport, pkg.version));
  const close = async () => {
    await schedules.stop();
    await app.close();
  };
  const stop = async () => {
    // not ready first: a load balancer polling /readyz takes the process out while it still answers
    readiness.drain();
    if (config.drainDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.drainDelayMs));
    await close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  // an error no request path caught: logged; an uncaught exception stops the server (process-guard.ts)
  installProcessGuard(app.log, close);
}

main().catch((err: unknown) => {
  if (err instanceof DataDirBusyError) {
    console.error(`till: ${err.message}: one server per data directory (stop it first, or set TILL_DATA_DIR to another directory)`);
  } else {
    console.error(err instanceof ConfigError ? err.message : err);
  }
  process.exit(1);
});
