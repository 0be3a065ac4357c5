// What NODE_ENV=production refuses to start with: settings that are right for trying till on a laptop and wrong
// for a business (test cards paying live organizations, links and cookies over plain http, a secret each machine
// makes up for itself, mail that never leaves the machine). Each problem is one line naming the variable and the
// fix; all of them are listed at once, so one restart fixes them all. Development starts as before.
import path from "node:path";
import { ConfigError, type Config } from "./config.js";

/** A base URL's host that never leaves the machine: localhost (and its subdomains), 127.0.0.0/8, ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return host === "localhost" || host.endsWith(".localhost") || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === "::1";
}

/** The unsafe settings of a production configuration, one line each (none in development). */
export function unsafeInProduction(config: Config): string[] {
  if (!config.production) return [];
  const problems: string[] = [];
  if (config.payments.testInLive) {
    problems.push("TILL_TEST_PAYMENTS=live: anyone could pay a live organization with a test card; remove it (sandbox organizations keep the test processor)");
  }
  const base = new URL(config.baseURL);
  if (base.protocol === "http:" && !isLoopbackHost(base.hostname)) {
    problems.push(
      `TILL_BASE_URL=${base.origin}: sign-in cookies, checkout and portal links would travel unencrypted; use https:// (a TLS proxy in front of till)`,
    );
  }
  if (config.databaseUrl && !config.authSecret) {
    problems.push(
      "TILL_AUTH_SECRET is not set while DATABASE_URL is: each machine would make up its own secret, and sessions and sealed credentials " +
        "would not open on another replica or after a move; set it to 32 or more random characters (openssl rand -base64 32)",
    );
  }
  if (!config.mail.smtpUrl) {
    problems.push(
      `SMTP_URL is not set: mail would go to the dev mailbox (${path.join(config.dataDir, "mail")}) and nobody would receive any; ` +
        "set SMTP_URL=smtp://user:password@host:587",
    );
  }
  return problems;
}

/** Throws a ConfigError listing every unsafe setting of a production configuration. */
export function refuseUnsafeProduction(config: Config): void {
  const problems = unsafeInProduction(config);
  if (problems.length === 0) return;
  throw new ConfigError(
    [
      `till will not start with NODE_ENV=production and ${problems.length === 1 ? "this unsafe setting" : `these ${problems.length} unsafe settings`}:`,
      ...problems.map((p) => `  - ${p}`),
      "(without NODE_ENV=production, till starts for development with them)",
    ].join("\n"),
  );
}
