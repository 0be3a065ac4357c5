// Every environment variable the server reads, parsed once. The defaults run the embedded mode:
// PGlite under ./.till, the dev mailbox, no social providers, nothing else to set up.
import { z } from "zod";
import path from "node:path";
import type { TimeString } from "better-auth/plugins";
import { CLI_DEVICE_CLIENT } from "../shared/device-clients.js";

const timeString = z
  .string()
  .regex(/^\d+[smh]$/, "must be a duration such as 5s, 30m or 1h")
  .transform((v) => v as TimeString);

/** A duration such as 5s, 30m or 1h in seconds. */
function secondsOf(v: string): number {
  const n = Number(v.slice(0, -1));
  return v.endsWith("h") ? n * 3600 : v.endsWith("m") ? n * 60 : n;
}

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");
const list = z.string().transform((v) =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
);

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("127.0.0.1"),
  TILL_TRUST_PROXY: z.string().default("loopback"),
  /** /metrics on a listener of its own (server/metrics/endpoint.ts), on TILL_METRICS_HOST (loopback by default). */
  TILL_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  TILL_METRICS_HOST: z.string().default("127.0.0.1"),
  /** On SIGTERM: how long /readyz answers 503 while requests are still served, before the server closes. */
  TILL_DRAIN_DELAY: z
    .string()
    .regex(/^\d+(\.\d+)?(ms|s)?$/, "must be a duration such as 5s or 500ms")
    .transform((v) => (v.endsWith("ms") ? Number(v.slice(0, -2)) : Number(v.replace(/s$/, "")) * 1000))
    .default(0),
  /** /metrics on the main port for `Authorization: Bearer <token>` (and the same token asked on the metrics port). */
  TILL_METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  TILL_BASE_URL: z.url().optional(),
  TILL_DATA_DIR: z.string().default(".till"),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL").optional(),
  DATABASE_DIRECT_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL").optional(),
  DATABASE_REPLICA_URL: list.pipe(z.array(z.string().regex(/^postgres(ql)?:\/\//, "must be postgres:// URLs, comma-separated"))).default([]),
  TILL_REPLICA_MAX_LAG: z
    .string()
    .regex(/^\d+(\.\d+)?(ms|s)?$/, "must be a duration such as 2s or 500ms")
    .transform((v) => (v.endsWith("ms") ? Number(v.slice(0, -2)) : Number(v.replace(/s$/, "")) * 1000))
    .default(2000),
  TILL_AUTH_SECRET: z.string().min(32).optional(),
  TILL_TRUSTED_ORIGINS: list.default([]),
  TILL_ADMIN_USER_IDS: list.default([]),
  TILL_RATE_LIMIT: bool.default(true),
  TILL_RATE_LIMIT_WINDOW: z.coerce.number().int().positive().default(60),
  TILL_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(100),
  TILL_RATE_LIMIT_ACCOUNT_WINDOW: z.coerce.number().int().positive().default(900),
  TILL_RATE_LIMIT_ACCOUNT_MAX: z.coerce.number().int().positive().default(10),
  TILL_REVOKE_SESSIONS_ON_PASSWORD_RESET: bool.default(true),
  TILL_DEVICE_CODE_INTERVAL: timeString.default("5s"),
  TILL_DEVICE_CODE_EXPIRES_IN: timeString.default("30m"),
  /** How often an open event stream (till listen, a checkout's status) carries a keep-alive: 1s to 5m. */
  TILL_STREAM_KEEPALIVE: timeString.default("15s").refine((v) => secondsOf(v) >= 1 && secondsOf(v) <= 300, "must be between 1s and 5m"),
  /** More device-flow clients besides the till CLI: "id:Name,id2:Name 2". */
  TILL_DEVICE_CLIENTS: z
    .string()
    .default("")
    .transform((v, ctx) => {
      const clients = new Map<string, string>();
      for (const entry of v.split(",").map((s) => s.trim()).filter(Boolean)) {
        const i = entry.indexOf(":");
        const id = (i < 0 ? entry : entry.slice(0, i)).trim();
        const name = (i < 0 ? "" : entry.slice(i + 1)).trim();
        if (!/^[\w.-]{1,100}$/.test(id) || name.length === 0 || name.length > 100) {
          ctx.addIssue({ code: "custom", message: `"${entry}" is not id:Name (id of letters, digits, "_", "-", ".")` });
          return z.NEVER;
        }
        clients.set(id, name);
      }
      return clients;
    }),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default("till <no-reply@till.localhost>"),
  GITHUB_CLIENT_ID: z.string().optional(),
  GITHUB_CLIENT_SECRET: z.string().optional(),
  TILL_OIDC_ISSUER: z.url().optional(),
  TILL_OIDC_CLIENT_ID: z.string().optional(),
  TILL_OIDC_CLIENT_SECRET: z.string().optional(),
  TILL_OIDC_PROVIDER_ID: z.string().regex(/^[a-z0-9-]+$/).default("oidc"),
  TILL_OIDC_SCOPES: list.default(["openid", "email", "profile"]),
  TILL_OIDC_TRUSTED: bool.default(true),
  TILL_LOG_FORMAT: z.enum(["pretty", "json"]).optional(),
  NODE_ENV: z.string().optional(),
  TILL_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /**
   * Webhook endpoints on private/loopback addresses (and http:// on loopback); default: on only in the embedded PGlite
   * mode.
   */
  TILL_WEBHOOKS_ALLOW_PRIVATE: bool.optional(),
  TILL_POLAR_WEBHOOK_SECRET: z.string().min(1).optional(),
  /**
   * Days the delivery log, finished webhook events and processed outbox rows are kept (≥ 1: `till listen` replays
   * recent rows).
   */
  TILL_EVENT_RETENTION: z
    .string()
    .regex(/^\d+mo$/, "must be a number of months such as 24mo")
    .transform((v) => Number(v.slice(0, -2)))
    .pipe(z.number().int().min(1))
    .optional(),
  TILL_WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Renewal batches this process runs at once (server/jobs/schedules.ts); each holds a database connection. */
  TILL_RENEWAL_CONCURRENCY: z.coerce.number().int().min(1).max(8).default(1),
  // where benefit delivery talks to GitHub and Discord (tests point them at loopback peers)
  TILL_GITHUB_API_URL: z.url().default("https://api.github.com"),
  TILL_GITHUB_OAUTH_URL: z.url().default("https://github.com"),
  /** The least time between two GitHub writes for one seller (default: Octokit's 1 s, 3 s for writes that notify). */
  TILL_GITHUB_WRITE_INTERVAL_MS: z
    .string()
    .regex(/^\d{1,5}$/, "must be a whole number of milliseconds")
    .transform(Number)
    .pipe(z.number().int().max(60_000))
    .optional(),
  TILL_DISCORD_API_URL: z.url().default("https://discord.com/api"),
  TILL_DISCORD_OAUTH_URL: z.url().default("https://discord.com"),
  /** `live`: the built-in test processor takes payments for live organizations too (development and tests only). */
  TILL_TEST_PAYMENTS: z.enum(["sandbox", "live"]).default("sandbox"),
  /** `required`: an organization's submitted details wait for a platform admin's approval before it goes live. */
  TILL_ORG_REVIEW: z.enum(["off", "required"]).default("off"),
  /** Stripe's API (tests point it at a stand-in on loopback). */
  TILL_STRIPE_API_URL: z.url().default("https://api.stripe.com"),
  /**
   * Requests per second an import holds itself to at Stripe; absent, Stripe's published limit for the key's mode
   * (25 in test mode, 100 live). For an account whose limit Stripe raised, or a stand-in.
   */
  TILL_STRIPE_IMPORT_RATE: z.coerce.number().int().min(1).max(10_000).optional(),
});

export interface OidcProviderConfig {
  providerId: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  /** Link its accounts to a same-email user even when the issuer does not mark the email verified. */
  trusted: boolean;
}

export interface Config {
  port: number;
  host: string;
  /** Fastify trustProxy: "true", "false", or a comma-separated list of addresses/CIDRs/"loopback". */
  trustProxy: boolean | string;
  /** Where /metrics is served: a port of its own, and/or the main port behind a token; neither by default. */
  metrics: { port: number | undefined; host: string; token: string | undefined };
  /** On SIGTERM, ms of answering not-ready before closing (TILL_DRAIN_DELAY). */
  drainDelayMs: number;
  baseURL: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** The primary without the pooler (migrations, LISTEN) when DATABASE_URL is a transaction-mode pooler. */
  databaseDirectUrl: string | undefined;
  /** Streaming replicas for reads that tolerate lag, and how far behind one may be (ms). */
  replicas: { urls: string[]; maxLagMs: number };
  /** Usage events: whole months older than `retentionMonths` are dropped (off when absent). */
  events: { retentionMonths: number | undefined };
  /** Fixed secret from the environment; when absent one is generated once and kept in the data dir. */
  authSecret: string | undefined;
  trustedOrigins: string[];
  adminUserIds: string[];
  /** window/max: per client address (better-auth); account: failed sign-ins per email or username. */
  rateLimit: { enabled: boolean; window: number; max: number; account: { window: number; max: number } };
  revokeSessionsOnPasswordReset: boolean;
  /** clients: the registered device-flow clients, client_id → name shown on the /device page (the CLI always). */
  device: { interval: TimeString; expiresIn: TimeString; clients: ReadonlyMap<string, string> };
  mail: { smtpUrl: string | undefined; from: string };
  /** Open event streams (GET /v1/cli/listen, a checkout's status stream) send a keep-alive this often. */
  streamKeepAliveMs: number;
  /**
   * Development mode (NODE_ENV unset or `development`): with the dev mailbox, /dev/mail shows the messages to
   * loopback clients and the mail log line carries a portal sign-in code.
   */
  development: boolean;
  /** NODE_ENV=production: unsafe settings are refused at start (production-checks.ts). */
  production: boolean;
  github: { clientId: string; clientSecret: string } | undefined;
  oidc: OidcProviderConfig | undefined;
  logLevel: string;
  /** `pretty`: one readable line per request (development); `json`: pino's JSON lines (production). */
  logFormat: "pretty" | "json";
  /**
   * allowPrivate: deliver to private/loopback targets; inboundSecret: enables POST /api/auth/polar/webhooks;
   * retentionDays: how long the delivery log, finished events and processed outbox rows are kept.
   */
  webhooks: { allowPrivate: boolean; inboundSecret: string | undefined; retentionDays: number };
  /** Base URLs of the services github_repository and discord benefits are delivered through. */
  benefits: BenefitServicesConfig;
  /** Renewal batches (claiming transactions) this process runs at once. */
  renewalConcurrency: number;
  /**
   * testInLive: the test processor serves live organizations too (TILL_TEST_PAYMENTS=live); refused in production
   * (production-checks.ts).
   */
  payments: { testInLive: boolean; stripeApiUrl: string; stripeImportRate?: number | undefined };
  /**
   * reviewRequired: submitted details put the organization under review until a platform admin decides
   * (TILL_ORG_REVIEW).
   */
  organizations: { reviewRequired: boolean };
}

export interface BenefitServicesConfig {
  githubApiUrl: string;
  githubOauthUrl: string;
  /** The least time between two GitHub writes for one seller; undefined: Octokit's (as GitHub asks). */
  githubWriteIntervalMs?: number | undefined;
  discordApiUrl: string;
  discordOauthUrl: string;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  if (Boolean(e.GITHUB_CLIENT_ID) !== Boolean(e.GITHUB_CLIENT_SECRET)) {
    throw new ConfigError("invalid configuration: set both GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET, or neither");
  }
  const oidcParts = [e.TILL_OIDC_ISSUER, e.TILL_OIDC_CLIENT_ID, e.TILL_OIDC_CLIENT_SECRET];
  if (oidcParts.some(Boolean) && !oidcParts.every(Boolean)) {
    throw new ConfigError(
      "invalid configuration: set TILL_OIDC_ISSUER, TILL_OIDC_CLIENT_ID and TILL_OIDC_CLIENT_SECRET together",
    );
  }
  const baseURL = (e.TILL_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  return {
    port: e.PORT,
    host: e.HOST,
    trustProxy: e.TILL_TRUST_PROXY === "true" ? true : e.TILL_TRUST_PROXY === "false" ? false : e.TILL_TRUST_PROXY,
    metrics: { port: e.TILL_METRICS_PORT, host: e.TILL_METRICS_HOST, token: e.TILL_METRICS_TOKEN },
    drainDelayMs: e.TILL_DRAIN_DELAY,
    baseURL,
    dataDir: path.resolve(e.TILL_DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databaseDirectUrl: e.DATABASE_DIRECT_URL,
    replicas: { urls: e.DATABASE_REPLICA_URL, maxLagMs: e.TILL_REPLICA_MAX_LAG },
    events: { retentionMonths: e.TILL_EVENT_RETENTION },
    authSecret: e.TILL_AUTH_SECRET,
    trustedOrigins: e.TILL_TRUSTED_ORIGINS,
    adminUserIds: e.TILL_ADMIN_USER_IDS,
    rateLimit: {
      enabled: e.TILL_RATE_LIMIT,
      window: e.TILL_RATE_LIMIT_WINDOW,
      max: e.TILL_RATE_LIMIT_MAX,
      account: { window: e.TILL_RATE_LIMIT_ACCOUNT_WINDOW, max: e.TILL_RATE_LIMIT_ACCOUNT_MAX },
    },
    revokeSessionsOnPasswordReset: e.TILL_REVOKE_SESSIONS_ON_PASSWORD_RESET,
    device: {
      interval: e.TILL_DEVICE_CODE_INTERVAL,
      expiresIn: e.TILL_DEVICE_CODE_EXPIRES_IN,
      clients: new Map([[CLI_DEVICE_CLIENT.id, CLI_DEVICE_CLIENT.name], ...e.TILL_DEVICE_CLIENTS]),
    },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    streamKeepAliveMs: secondsOf(e.TILL_STREAM_KEEPALIVE) * 1000,
    development: (e.NODE_ENV ?? "development") === "development",
    production: e.NODE_ENV === "production",
    github:
      e.GITHUB_CLIENT_ID && e.GITHUB_CLIENT_SECRET
        ? { clientId: e.GITHUB_CLIENT_ID, clientSecret: e.GITHUB_CLIENT_SECRET }
        : undefined,
    oidc:
      e.TILL_OIDC_ISSUER && e.TILL_OIDC_CLIENT_ID && e.TILL_OIDC_CLIENT_SECRET
        ? {
            providerId: e.TILL_OIDC_PROVIDER_ID,
            issuer: e.TILL_OIDC_ISSUER,
            clientId: e.TILL_OIDC_CLIENT_ID,
            clientSecret: e.TILL_OIDC_CLIENT_SECRET,
            scopes: e.TILL_OIDC_SCOPES,
            trusted: e.TILL_OIDC_TRUSTED,
          }
        : undefined,
    logLevel: e.TILL_LOG_LEVEL,
    logFormat: e.TILL_LOG_FORMAT ?? (e.NODE_ENV === "production" ? "json" : "pretty"),
    renewalConcurrency: e.TILL_RENEWAL_CONCURRENCY,
    payments: { testInLive: e.TILL_TEST_PAYMENTS === "live", stripeApiUrl: e.TILL_STRIPE_API_URL, stripeImportRate: e.TILL_STRIPE_IMPORT_RATE },
    organizations: { reviewRequired: e.TILL_ORG_REVIEW === "required" },
    webhooks: {
      allowPrivate: e.TILL_WEBHOOKS_ALLOW_PRIVATE ?? !e.DATABASE_URL,
      inboundSecret: e.TILL_POLAR_WEBHOOK_SECRET,
      retentionDays: e.TILL_WEBHOOK_RETENTION_DAYS,
    },
    benefits: {
      githubApiUrl: e.TILL_GITHUB_API_URL.replace(/\/+$/, ""),
      githubOauthUrl: e.TILL_GITHUB_OAUTH_URL.replace(/\/+$/, ""),
      githubWriteIntervalMs: e.TILL_GITHUB_WRITE_INTERVAL_MS,
      discordApiUrl: e.TILL_DISCORD_API_URL.replace(/\/+$/, ""),
      discordOauthUrl: e.TILL_DISCORD_OAUTH_URL.replace(/\/+$/, ""),
    },
  };
}
