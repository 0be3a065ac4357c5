// What `npm start` prints once it listens: where till is, what it stores where, where mail goes, and the
// command to run next — enough for a first run without reading further.
import path from "node:path";
import type { Config } from "./config.js";
import { serversOf } from "./db/client.js";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/**
 * The database as a person reads it: PGlite's folder, or PostgreSQL's host (hosts, for a failover set-up's URL)
 * and database (never the password).
 */
export function describeDatabase(config: Config): string {
  if (!config.databaseUrl) return `PGlite (embedded) in ${path.join(config.dataDir, "pglite")}`;
  const servers = serversOf(config.databaseUrl);
  const database = /^[^?]*?\/\/[^/?]*\/([^?]*)/.exec(config.databaseUrl)?.[1];
  if (!servers) return "PostgreSQL";
  return `PostgreSQL at ${servers.join(",")}${database ? `/${decodeURIComponent(database)}` : ""}`;
}

export function startupBanner(config: Config, mail: "smtp" | "dev-mailbox", version: string): string {
  const smtpHost = (() => {
    try {
      return config.mail.smtpUrl ? new URL(config.mail.smtpUrl).host : "";
    } catch {
      return "";
    }
  })();
  const lines = [
    `till is listening on ${config.baseURL} (version ${version})`,
    `  database  ${describeDatabase(config)}`,
    mail === "smtp"
      ? `  mail      SMTP via ${smtpHost} (from ${config.mail.from})`
      : `  mail      dev mailbox: nothing is sent; each message goes to ${path.join(config.dataDir, "mail")} and its links are printed here` +
        (config.development ? `; read them at ${config.baseURL}/dev/mail` : ""),
  ];
  if (config.payments.testInLive) {
    lines.push("  payments  TILL_TEST_PAYMENTS=live: live organizations take the test card (development only: no real money moves)");
  }
  if (!LOOPBACK.test(config.host)) {
    lines.push(`  network   bound to ${config.host}: reachable from other machines (HOST=127.0.0.1 keeps it on this one)`);
  }
  // the CLI goes to http://localhost:3000 unless told: anywhere else, the commands carry --server
  const server = config.baseURL === "http://localhost:3000" ? "" : ` --server ${config.baseURL}`;
  lines.push(
    `  next      \`npx till signup${server}\` (or create your account at ${config.baseURL}/sign-in?mode=sign-up, then \`npx till login${server}\`)`,
  );
  return lines.join("\n");
}
