// The better-auth instance: accounts, sessions, organizations, API keys, device flow and the rest of
// the account side of the product spec. Side effects that leave the process (mail) go through the Mailer.
import { apiKey } from "@better-auth/api-key";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import {
  admin,
  anonymous,
  bearer,
  deviceAuthorization,
  genericOAuth,
  openAPI,
  organization,
  username,
} from "better-auth/plugins";
import type { Config } from "../config.js";
import type { Db } from "../db/client.js";
import * as schema from "../db/schema/index.js";
import type { Mailer } from "../mail/mailer.js";
import { ALL_BILLING_PERMISSIONS } from "../../shared/scopes.js";
import { ac, platformAc, platformRoles, roles } from "./access.js";
import { onAnonymousLinked } from "./anonymous.js";
import { socialSpec } from "./social.js";
import { specRules } from "./spec-rules.js";
import { accountRules, EMAIL_LINK_TTL_SECONDS, emailChangeLink } from "./account-rules.js";
import { specAnswers } from "./spec-answers.js";
import { tillApiKeys } from "./api-keys.js";
import { gateDevicePolls, tillDevice } from "./device.js";
import { tillCheckout } from "./checkout.js";
import { safeRedirects } from "./redirects.js";
import { signInLimit } from "./sign-in-limit.js";
import { rateLimitStore } from "../http/rate-limit.js";
import { columnGuardPlugin, guardColumnValues } from "./column-guard.js";
import { emitOrganizationUpdates } from "./organization-events.js";
import { hashStoredTokens } from "./stored-tokens.js";
import { tillSessionHandles } from "./session-handles.js";
import { changeEmailMail, deleteAccountMail, invitationMail, resetPasswordMail, verificationMail } from "./emails.js";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../../shared/passwords.js";
import { API_KEY_PREFIX, AUTH_BASE_PATH, LIVE_API_KEY_PREFIX, SANDBOX_API_KEY_PREFIX } from "../../shared/auth-mount.js";

/** The prefixes of each side's keys (a plain till_ key, made before the sides, is live). */
const API_KEY_SIDES = { live: [LIVE_API_KEY_PREFIX, API_KEY_PREFIX], sandbox: [SANDBOX_API_KEY_PREFIX] };
/** Set by the Fastify mount from the connection (or a trusted proxy); better-auth rate-limits on it. */
export const CLIENT_IP_HEADER = "x-till-client-ip";

/** How passwords are hashed and checked: better-auth's scrypt (N=16384, r=16) unless one is given. */
export interface PasswordHashing {
  hash(password: string): Promise<string>;
  verify(data: { hash: string; password: string }): Promise<boolean>;
}

export interface AuthDeps {
  config: Config;
  db: Db;
  mailer: Mailer;
  secret: string;
  /** The in-process test servers' cheaper hash (tests/helpers/password-hashing.ts); main.ts never passes one. */
  passwordHashing?: PasswordHashing;
}

// The OAuth device flow (RFC 8628). The default type argument is written out: left to inference, TypeScript spent
// 14 s of a 38 s typecheck matching these options against every possible grant (measured with --generateTrace).
function deviceFlow(config: Config) {
  return deviceAuthorization<undefined>({
    expiresIn: config.device.expiresIn,
    interval: config.device.interval,
    // $TILL_BASE_URL/device even when the base URL has a path (better-auth resolves "/device" against the host)
    verificationUri: `${config.baseURL}/device`,
    // RFC 8628 §3.1/§3.4: unknown clients are answered invalid_client
    validateClient: (clientId) => config.device.clients.has(clientId),
  });
}

/**
 * The account store: better-auth's drizzle adapter, wrapped from the inside out — organization updates become
 * outbox events, stored tokens are hashed, column values are checked, device-code polls are gated.
 */
function authDatabase(config: Config, db: Db) {
  const adapter = emitOrganizationUpdates((handle) => drizzleAdapter(handle, { provider: "pg", schema }), db, {
    testInLive: config.payments.testInLive,
  });
  return gateDevicePolls(guardColumnValues(hashStoredTokens(adapter), schema), db);
}

/** Organizations with members, teams and dynamic roles; an invitation is mailed with its acceptance link. */
function organizations(config: Config, mailer: Mailer) {
  return organization({
    ac,
    roles,
    creatorRole: "owner",
    teams: { enabled: true },
    dynamicAccessControl: { enabled: true },
    sendInvitationEmail: async ({ email, inviter, organization: org, role, id }) =>
      mailer.send(
        invitationMail(email, {
          inviter: inviter.user.name || inviter.user.email,
          organization: org.name,
          role,
          url: `${config.baseURL}/accept-invitation/${id}`,
        }),
      ),
  });
}

/** Sign-in with the configured OpenID provider (none when $TILL_OIDC_* is unset). */
function oidcSignIn(config: Config) {
  if (!config.oidc) return [];
  return [
    genericOAuth({
      config: [
        {
          providerId: config.oidc.providerId,
          discoveryUrl: `${config.oidc.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
          clientId: config.oidc.clientId,
          clientSecret: config.oidc.clientSecret,
          scopes: config.oidc.scopes,
          pkce: true,
        },
      ],
    }),
  ];
}

export function createAuth({ config, db, mailer, secret, passwordHashing }: AuthDeps) {
  const send = (m: Parameters<Mailer["send"]>[0]) => mailer.send(m);
  const limits = rateLimitStore(db);
  return betterAuth({
    appName: "till",
    baseURL: config.baseURL,
    basePath: AUTH_BASE_PATH,
    secret,
    // session tokens and device codes are stored hashed (stored-tokens.ts)
    database: authDatabase(config, db),
    // reset-password, delete-account and OAuth state identifiers are stored as their SHA-256 (base64url)
    verification: { storeIdentifier: "hashed" },
    telemetry: { enabled: false },
    // an error that is not one of better-auth's answers (APIError) leaves the handler instead of becoming an empty
    // 500: the server's error handler answers it (a 503 with Retry-After while the database is away, db/unavailable.ts)
    onAPIError: { throw: true },
    trustedOrigins: [config.baseURL, ...config.trustedOrigins],
    rateLimit: {
      enabled: config.rateLimit.enabled,
      window: config.rateLimit.window,
      max: config.rateLimit.max,
      // in the database, so replicas count together (better-auth's default is one process's memory)
      customStorage: { consume: (key, rule) => limits.consume(`auth:${key}`, rule) },
    },
    advanced: {
      database: { generateId: "uuid" },
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      // better-auth turns the origin, callbackURL and CSRF checks off when NODE_ENV=test (vitest sets it);
      // pinned on so every environment, tests included, runs the checks production runs
      disableOriginCheck: false,
      disableCSRFCheck: false,
    },
    emailAndPassword: {
      enabled: true,
      autoSignIn: true,
      minPasswordLength: PASSWORD_MIN_LENGTH,
      maxPasswordLength: PASSWORD_MAX_LENGTH,
      resetPasswordTokenExpiresIn: 3600,
      revokeSessionsOnPasswordReset: config.revokeSessionsOnPasswordReset,
      sendResetPassword: async ({ user, url }) => send(resetPasswordMail(user.email, url)),
      ...(passwordHashing ? { password: { hash: passwordHashing.hash, verify: passwordHashing.verify } } : {}),
    },
    emailVerification: {
      sendOnSignUp: true,
      autoSignInAfterVerification: true,
      expiresIn: EMAIL_LINK_TTL_SECONDS,
      sendVerificationEmail: async ({ user, url }) => send(verificationMail(user.email, url)),
    },
    user: {
      changeEmail: {
        enabled: true,
        // the spec's user and email states: an unverified email is changed at once (a verification mail goes to the new
        // address)
        updateEmailWithoutVerification: true,
        sendChangeEmailConfirmation: async ({ user, newEmail, url }) =>
          send(changeEmailMail(user.email, newEmail, await emailChangeLink(secret, url, user, newEmail))),
      },
      deleteUser: {
        enabled: true,
        deleteTokenExpiresIn: 86400,
        sendDeleteAccountVerification: async ({ user, url }) => send(deleteAccountMail(user.email, url)),
      },
    },
    account: {
      // GitHub/OIDC access and refresh tokens: encrypted with the server secret (better-auth keeps the ID token)
      encryptOAuthTokens: true,
      accountLinking: {
        enabled: true,
        trustedProviders: config.oidc?.trusted ? [config.oidc.providerId] : [],
      },
    },
    socialProviders: config.github
      ? { github: { clientId: config.github.clientId, clientSecret: config.github.clientSecret } }
      : {},
    plugins: [
      // first: every later hook and endpoint sees redirect targets in their canonical form
      safeRedirects(),
      ...(config.rateLimit.enabled ? [signInLimit(limits, config.rateLimit.account)] : []),
      // before every plugin with database hooks: values are checked before any other plugin's hooks see them
      columnGuardPlugin(schema),
      organizations(config, mailer),
      specRules(),
      accountRules(),
      specAnswers(),
      apiKey({
        references: "organization",
        defaultPrefix: LIVE_API_KEY_PREFIX,
        // the list shows the side a key acts on and a few characters to tell keys apart: till_test_AbCd
        startingCharactersConfig: { shouldStore: true, charactersLength: SANDBOX_API_KEY_PREFIX.length + 4 },
        enableMetadata: true,
        // better-auth's default (10 requests a day) would stop any CI job; per-key limits stay settable
        rateLimit: { enabled: true, timeWindow: 60_000, maxRequests: 1000 },
        // a key created without explicit permissions may use every /v1 scope of its organization
        permissions: { defaultPermissions: ALL_BILLING_PERMISSIONS },
      }),
      tillApiKeys({ prefixes: [LIVE_API_KEY_PREFIX, SANDBOX_API_KEY_PREFIX, API_KEY_PREFIX], sides: API_KEY_SIDES }),
      tillDevice(config.device.clients),
      tillSessionHandles(db),
      tillCheckout({ db, config, secret }),
      deviceFlow(config),
      anonymous({ onLinkAccount: ({ anonymousUser, newUser }) => onAnonymousLinked(db, anonymousUser.user.id, newUser.user.id) }),
      username(),
      admin({ adminUserIds: config.adminUserIds, defaultRole: "user", adminRoles: ["admin"], ac: platformAc, roles: platformRoles }),
      bearer(),
      openAPI(),
      socialSpec(),
      ...oidcSignIn(config),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;
