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

/**
 * What else is on, for the operator of a production server to check at a glance: where payments, sign-in and
 * the secret come from, what runs in this process, what is exposed. Names and hosts only, never a secret.
 */
function productionLines(config: Config): string[] {
  const signIn = ["email and password"];
  if (config.github) signIn.push("GitHub");
  if (config.oidc) signIn.push(`OpenID Connect (${hostOf(config.oidc.issuer)})`);
  const replicas = config.replicas.urls.length;
  const retention = config.events.retentionMonths === undefined ? "usage events kept" : `usage events dropped after ${config.events.retentionMonths} months`;
  const lines = [
    ...(replicas > 0 ? [`  replicas  ${replicas} read replica${replicas === 1 ? "" : "s"} (${config.replicas.urls.map(hostOf).join(", ")}), reads at most ${config.replicas.maxLagMs} ms behind`] : []),
    "  payments  each organization's own Stripe account once connected; the test processor for sandbox organizations only",
    `  sign-in   ${signIn.join(", ")}`,
    `  secret    ${config.authSecret ? "TILL_AUTH_SECRET" : `generated once, kept in ${path.join(config.dataDir, "auth-secret")}`}`,
    `  workers   outbox worker and schedules (renewals, dunning, checkout expiry) in this process, ${config.renewalConcurrency} renewal batch${config.renewalConcurrency === 1 ? "" : "es"} at a time`,
    `  proxy     X-Forwarded-* trusted from: ${String(config.trustProxy)}`,
    `  limits    ${config.rateLimit.enabled ? `${config.rateLimit.max} requests per ${config.rateLimit.window} s per address` : "rate limit off (TILL_RATE_LIMIT=false)"}`,
    `  retention webhook log ${config.webhooks.retentionDays} days; ${retention}`,
    `  log       ${config.logFormat}, level ${config.logLevel}`,
  ];
  if (config.organizations.reviewRequired) lines.push("  review    organizations wait for a platform admin's approval before going live");
  if (config.webhooks.allowPrivate) lines.push("  webhooks  delivered to private and loopback addresses too (TILL_WEBHOOKS_ALLOW_PRIVATE)");
  return lines;
}

/** A URL's host (no user, no password), or "?" for one that does not parse. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "?";
  }
}

export function startupBanner(config: Config, mail: "smtp" | "dev-mailbox", version: string): string {
  const smtpHost = config.mail.smtpUrl ? hostOf(config.mail.smtpUrl) : "";
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
  if (config.production) lines.push(...productionLines(config));
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
