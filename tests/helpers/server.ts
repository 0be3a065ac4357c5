// Starts the real till server in-process on a loopback port, on a fresh database, with a real SMTP peer.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildApp, type App } from "../../server/app.js";
import { loadConfig, type Config } from "../../server/config.js";
import { createMailer } from "../../server/mail/mailer.js";
import type { Database } from "../../server/db/client.js";
import { freshDatabase } from "./db.js";
import { Mailbox } from "./mailbox.js";
import { testPasswordHashing } from "./password-hashing.js";
import { reservePort } from "./ports.js";

export interface TestServer extends App {
  url: string;
  config: Config;
  mailbox: Mailbox;
  /** The server's own database handle, for moving clocks (expires_at) and checking rows. */
  database: Database;
  /** The dev mailbox's folder (.eml files) when started with `devMailbox`. */
  mailDir: string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Listen on this port instead of a free one (a restart where clients expect the server). */
  port?: number;
  /** Run on this database and leave it open on close (a restart on the same data); else a fresh one. */
  database?: Database;
  /** Turn the server's log on, written here. */
  logStream?: NodeJS.WritableStream;
  /** Send mail to the dev mailbox (.eml files under `mailDir`) instead of the SMTP peer. */
  devMailbox?: boolean;
  /** Where the dev mailbox's log lines go (as main.ts prints them), with the server's development flag. */
  mailLog?: (line: string) => void;
  /** Adds to the app before it listens (a route or hook of the test's own). */
  configure?: (app: App["app"]) => void;
  /** Hash passwords as production does (better-auth's scrypt), not at the tests' small cost (password-hashing.ts). */
  productionPasswords?: boolean;
}

/** The server secret of every test server (better-auth signs cookies and encrypts OAuth tokens with it). */
export const TEST_SECRET = "test-secret-".padEnd(40, "x");

/**
 * `env` overrides the environment the server is configured from (PORT/TILL_BASE_URL are set for you);
 * a variable set to `undefined` drops the test default so the server's own default applies.
 */
export async function startServer(env: Record<string, string | undefined> = {}, opts: StartOptions = {}): Promise<TestServer> {
  const mailbox = new Mailbox();
  const smtpUrl = await mailbox.start();
  const database = opts.database ?? (await freshDatabase());
  const reserved = opts.port === undefined ? await reservePort() : { port: opts.port, release: async () => {} };
  const port = reserved.port;
  let config: Config;
  let built: App;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "till-test-"));
  const mailDir = path.join(dataDir, "mail");
  try {
    config = loadConfig({
      TILL_RATE_LIMIT: "false",
      TILL_DEVICE_CODE_INTERVAL: "1s",
      // the suite pays live organizations' checkouts with the test card (tests/api/live-payments.test.ts: without),
      // except in production, which refuses it
      ...(env.NODE_ENV === "production" ? {} : { TILL_TEST_PAYMENTS: "live" }),
      ...env,
      PORT: String(port),
      TILL_BASE_URL: env.TILL_BASE_URL ?? `http://127.0.0.1:${port}`,
      TILL_DATA_DIR: dataDir,
      ...(opts.devMailbox ? {} : { SMTP_URL: smtpUrl }),
    });
    const mailer = createMailer({ smtpUrl: config.mail.smtpUrl, from: config.mail.from, mailDir, log: opts.mailLog ?? (() => {}), development: config.development });
    built = await buildApp({
      config,
      database,
      mailer,
      secret: TEST_SECRET,
      ...(opts.productionPasswords ? {} : { passwordHashing: testPasswordHashing }),
      ...(opts.logStream ? { logger: true, logStream: opts.logStream } : {}),
    });
    opts.configure?.(built.app);
  } finally {
    await reserved.release(); // just before listening: the port was held until now
  }
  await built.app.listen({ port, host: "127.0.0.1" });
  return {
    ...built,
    url: `http://127.0.0.1:${port}`,
    config,
    mailbox,
    database,
    mailDir,
    async close() {
      await built.app.close();
      if (!opts.database) await database.close();
      await mailbox.stop();
    },
  };
}
