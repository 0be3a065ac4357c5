// A real OpenID Connect provider (oidc-provider) on loopback, the peer of till's social sign-in.
// One confidential client; users sign in without a page: the test's "browser" names the user (or a
// refusal) in a header when it reaches the interaction URL, and the peer finishes login and consent.
import { generateKeyPairSync } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type OidcAccount } from "oidc-provider";

export interface OidcUser {
  sub: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
  picture?: string;
}

export interface OidcPeerOptions {
  clientId?: string;
  clientSecret?: string;
  /** Lifetime of issued access tokens in seconds (expires_in of the token response). */
  accessTokenTtl?: number;
  /** Issue a refresh token with every authorization-code grant (default true, no offline_access needed). */
  issueRefreshToken?: boolean;
  /** Paths of the relying party's callback. The client is a loopback "native" client (RFC 8252 §7.3),
   *  so any port of 127.0.0.1 is accepted and the peer can start before till has picked its port. */
  callbackPaths?: string[];
}

export interface AuthorizeOptions {
  /** sub of the user who signs in (falls back to the request's login_hint). */
  as?: string;
  /** Refuse the request with this OAuth error code instead, e.g. "access_denied". */
  deny?: string;
}

export interface OidcPeer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The TILL_OIDC_* variables that point till at this peer. */
  env: Record<string, string>;
  /** grant_type of every token request the peer answered successfully, in order. */
  readonly grants: string[];
  /** Lifetime in seconds of access tokens issued from now on. */
  accessTokenTtl: number;
  addUser(user: OidcUser): OidcUser;
  /** Runs the authorization request at `url` like a browser and returns where the peer sends the user back to. */
  authorize(url: string, opts?: AuthorizeOptions): Promise<URL>;
  close(): Promise<void>;
}

const LOGIN_HEADER = "x-test-login";
const DENY_HEADER = "x-test-deny";

/** Follows the authorization request at `url` like a browser until it leaves the peer at `issuer`. */
async function authorizeAt(issuer: string, url: string, { as, deny }: AuthorizeOptions = {}): Promise<URL> {
  // a browser of its own per flow: no provider session is carried from one sign-in to the next
  const jar = new Map<string, string>();
  let current = new URL(url);
  for (let hop = 0; hop < 10; hop++) {
    if (current.origin !== issuer) return current;
    const headers: Record<string, string> = {};
    if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    if (current.pathname.startsWith("/interaction/")) {
      if (as) headers[LOGIN_HEADER] = as;
      if (deny) headers[DENY_HEADER] = deny;
    }
    const res = await fetch(current, { headers, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair = ""] = c.split(";");
      const i = pair.indexOf("=");
      const value = pair.slice(i + 1);
      if (value === "" || /max-age=0\b|expires=thu, 01 jan 1970/i.test(c)) jar.delete(pair.slice(0, i));
      else jar.set(pair.slice(0, i), value);
    }
    const location = res.headers.get("location");
    if (res.status < 300 || res.status >= 400 || !location) {
      throw new Error(`the OIDC peer answered ${res.status} at ${current.pathname}: ${await res.text()}`);
    }
    await res.arrayBuffer();
    current = new URL(location, current);
  }
  throw new Error("the OIDC peer redirected too many times");
}

export async function startOidcPeer(opts: OidcPeerOptions = {}): Promise<OidcPeer> {
  const clientId = opts.clientId ?? "till-test-client";
  const clientSecret = opts.clientSecret ?? "till-test-client-secret-0123456789abcdef";
  const users = new Map<string, OidcUser>();
  const grants: string[] = [];
  let accessTokenTtl = opts.accessTokenTtl ?? 3600;

  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = createProvider(issuer, { id: clientId, secret: clientSecret }, opts, users, () => accessTokenTtl);
  provider.on("grant.success", (ctx) => grants.push(String(ctx.oidc.params?.grant_type)));

  const handle = provider.callback();
  server.on("request", (req, res) => {
    if (req.url?.startsWith("/interaction/")) {
      finishInteraction(provider, users, clientId, req, res).catch((err: unknown) => {
        res.writeHead(500, { "content-type": "text/plain" }).end(String(err));
      });
      return;
    }
    handle(req, res);
  });

  return {
    issuer,
    clientId,
    clientSecret,
    env: { TILL_OIDC_ISSUER: issuer, TILL_OIDC_CLIENT_ID: clientId, TILL_OIDC_CLIENT_SECRET: clientSecret },
    grants,
    get accessTokenTtl() {
      return accessTokenTtl;
    },
    set accessTokenTtl(seconds: number) {
      accessTokenTtl = seconds;
    },
    addUser(user) {
      users.set(user.sub, user);
      return user;
    },
    authorize: (url, opts) => authorizeAt(issuer, url, opts),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** The provider: one loopback "native" client, the users' claims, access tokens living `accessTokenTtl()` seconds. */
function createProvider(
  issuer: string,
  client: { id: string; secret: string },
  opts: OidcPeerOptions,
  users: Map<string, OidcUser>,
  accessTokenTtl: () => number,
): Provider {
  const signingKey = {
    ...generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" }),
    kid: "test-key",
    alg: "RS256",
    use: "sig",
  };

  return new Provider(issuer, {
    clients: [
      {
        client_id: client.id,
        client_secret: client.secret,
        application_type: "native",
        redirect_uris: (opts.callbackPaths ?? ["/api/auth/callback/oidc"]).map((p) => `http://127.0.0.1${p}`),
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: ["till-test-oidc-cookie-key"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "picture"] },
    scopes: ["openid", "offline_access", "email", "profile"],
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) =>
      (opts.issueRefreshToken ?? true) && client.grantTypeAllowed("refresh_token"),
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 14 * 24 * 3600,
      Grant: 14 * 24 * 3600,
      Interaction: 600,
      Session: 3600,
    },
    findAccount: (_ctx: unknown, sub: string): OidcAccount | undefined => {
      const user = users.get(sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        claims: () => ({
          sub,
          email: user.email,
          email_verified: user.emailVerified,
          name: user.name,
          picture: user.picture,
        }),
      };
    },
  });
}

/** An interaction without a page: the user the request names signs in and consents at once, or it is refused. */
async function finishInteraction(
  provider: Provider,
  users: Map<string, OidcUser>,
  clientId: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const deny = req.headers[DENY_HEADER];
  if (typeof deny === "string") {
    await provider.interactionFinished(
      req,
      res,
      { error: deny, error_description: "End-User aborted interaction" },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  const named = req.headers[LOGIN_HEADER];
  const sub = typeof named === "string" ? named : details.params.login_hint;
  if (!sub || !users.has(sub)) {
    res.writeHead(400, { "content-type": "text/plain" }).end(`no such test user: ${sub ?? "(none named)"}`);
    return;
  }
  // login and consent in one go: the grant covers every scope the client asked for
  const grant = new provider.Grant({ accountId: sub, clientId: details.params.client_id ?? clientId });
  if (details.params.scope) grant.addOIDCScope(details.params.scope);
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId: sub }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}
