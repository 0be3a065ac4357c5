// What the social sign-in tests share (social*.test.ts): an OpenID Connect peer on loopback with a server of the
// file's own configured for it, the wire shapes they read, and the steps of a sign-in or link at the provider.
import { afterAll, beforeAll, expect } from "vitest";
import { Client, type Res } from "../helpers/client.js";
import { startOidcPeer, type AuthorizeOptions, type OidcPeer } from "../helpers/oidc.js";
import { startServer, type TestServer } from "../helpers/server.js";

export interface RedirectBody {
  url: string;
  redirect: boolean;
}
export interface ErrorBody {
  code: string;
  message: string;
}
export interface LinkedAccount {
  id: string;
  providerId: string;
  accountId: string;
  userId: string;
  scopes: string[];
  createdAt: string;
  updatedAt: string;
}
export interface AccessTokenBody {
  accessToken: string;
  accessTokenExpiresAt: string;
  scopes: string[];
  idToken: string;
}
export interface SessionBody {
  user: { id: string; email: string; name: string; emailVerified: boolean };
}

export const GITHUB = { GITHUB_CLIENT_ID: "gh-client-id-123", GITHUB_CLIENT_SECRET: "gh-client-secret-456" };
export const STATE_COOKIE = "better-auth.state";

let subCounter = 0;
export const newSub = () => `sub-${Date.now().toString(36)}-${subCounter++}`;

export function setCookie(res: Res, name: string): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
}

/** The provider side of a flow started by `start` (sign-in/social or link-social), back to till's callback. */
export async function finishAtProvider(peer: OidcPeer, c: Client, start: Res<RedirectBody>, opts: AuthorizeOptions) {
  expect(start.status).toBe(200);
  const back = await peer.authorize(start.body.url, opts);
  return c.get(back.toString());
}

export async function socialSignIn(peer: OidcPeer, c: Client, sub: string, body: Record<string, unknown> = {}) {
  const start = await c.post<RedirectBody>("/api/auth/sign-in/social", {
    provider: "oidc",
    callbackURL: "/dashboard",
    ...body,
  });
  return finishAtProvider(peer, c, start, { as: sub });
}

export async function linkSocial(peer: OidcPeer, c: Client, sub: string, body: Record<string, unknown> = {}) {
  const start = await c.post<RedirectBody>("/api/auth/link-social", {
    provider: "oidc",
    callbackURL: "/settings",
    ...body,
  });
  return finishAtProvider(peer, c, start, { as: sub });
}

export async function accountsOf(c: Client) {
  const res = await c.get<LinkedAccount[]>("/api/auth/list-accounts");
  expect(res.status).toBe(200);
  return res.body;
}

export async function oidcAccountOf(c: Client) {
  const found = (await accountsOf(c)).find((a) => a.providerId === "oidc");
  if (!found) throw new Error("no oidc account linked");
  return found;
}

export async function verifyEmail(server: TestServer, c: Client, email: string) {
  const mail = await server.mailbox.waitFor(email, /verify/i);
  const link = mail.links.find((l) => l.includes("/verify-email?"));
  if (!link) throw new Error(`no verification link in ${mail.text}`);
  const res = await c.get(link);
  expect(res.status).toBe(302);
}

export const errorURL = (server: TestServer, query: string) => `${server.url}/api/auth/error?${query}`;

/**
 * Starts an OpenID provider and then a server configured for it (with `env` besides) in beforeAll of the
 * describe it is called in, closes both in afterAll; the fields are there once beforeAll has run.
 */
export function oidcFixture(env: Record<string, string> = {}): { oidc: OidcPeer; server: TestServer } {
  const fx = {} as { oidc: OidcPeer; server: TestServer };
  beforeAll(async () => {
    // genericOAuth reads the issuer's discovery document when the auth instance is built: the peer goes first
    fx.oidc = await startOidcPeer();
    fx.server = await startServer({ ...fx.oidc.env, ...env });
  });
  afterAll(async () => {
    await fx.server?.close();
    await fx.oidc?.close();
  });
  return fx;
}
