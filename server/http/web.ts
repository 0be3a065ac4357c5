// Serves the web app (web/, built by Vite into web/dist): its hashed files under /assets/, and index.html
// for the app's own page routes only, so /api, /v1, /healthz and their 404s stay with their plugins.
// Also GET /api/providers: which ways of signing in this server offers, for the sign-in page.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Config } from "../config.js";

export const WEB_DIST_DIR = fileURLToPath(new URL("../../web/dist", import.meta.url));

/** The seller's pages (web/src/seller): each section's list and its detail pages. */
export const SELLER_PAGE_ROUTES = [
  ...["/products", "/orders", "/customers", "/subscriptions", "/checkout-links", "/discounts", "/meters", "/webhooks", "/custom-fields"].flatMap((p) => [p, `${p}/*`]),
  "/api-keys",
  // the settings, a section at each address (/settings/legal, /settings/team, …), and importing the account's
  // Stripe Billing business, reached from the Stripe connection
  "/settings",
  "/settings/*",
  // the platform admins' review queue (the page says so to anyone else, whom the API refuses)
  "/admin",
];

/** The paths the app has pages for; the invitation link of organization emails is one of them. */
export const PAGE_ROUTES: readonly string[] = ["/", "/sign-in", "/device", "/reset-password", "/portal", "/accept-invitation/*", "/seats/claim", "/pay/*", ...SELLER_PAGE_ROUTES];

/** The hosted checkout (and its confirmation page): the only pages a seller's site may frame (embed.js). */
export const CHECKOUT_PAGE_ROUTES = ["/checkout/*"] as const;

// The pages load only their own script and stylesheet and call only this server. Framing is refused:
// a framed device page could trick a signed-in user into clicking Approve.
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  // the shell names the current hashed assets, so it is revalidated on every load
  "cache-control": "no-cache",
} as const;

// A checkout is framed by the seller's own site through /embed.js. The checkout's embed_origin is not known
// here without a database read per page load, and a self-hosted seller's site can be any origin, so
// /checkout/* may be framed by any http(s) page. Nothing there acts on a session: the client secret in the
// URL is the only credential, and paying needs the card typed into the frame.
// A checkout of an organization connected to Stripe loads Stripe.js, which calls Stripe's API and shows the Payment
// Element and the 3-D Secure challenge in its own frames (Stripe's documented CSP sources).
export const STRIPE_JS_CSP = {
  script: "https://js.stripe.com https://*.js.stripe.com",
  connect: "https://api.stripe.com",
  frame: "https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com",
} as const;
const CHECKOUT_PAGE_HEADERS = {
  ...PAGE_HEADERS,
  "content-security-policy": PAGE_HEADERS["content-security-policy"]
    .replace("frame-ancestors 'none'", `frame-src ${STRIPE_JS_CSP.frame}; frame-ancestors *`)
    .replace("script-src 'self'", `script-src 'self' ${STRIPE_JS_CSP.script}`)
    .replace("connect-src 'self'", `connect-src 'self' ${STRIPE_JS_CSP.connect}`),
  "x-frame-options": undefined,
  // the success URL's query (customer_session_token) must not leak to the seller's site through Referer
  "referrer-policy": "no-referrer",
} as const;

/** The customer portal arrives with its session token in the query (taken out of the address bar at once):
 *  no Referer at all, not even to this server's own assets and API. */
const PORTAL_PAGE_HEADERS = { ...PAGE_HEADERS, "referrer-policy": "no-referrer" } as const;

/** The portal of a seller connected to Stripe takes cards in Stripe.js: its script, its frames (the Payment
 *  Element, 3-D Secure) and its API. Loaded only for such a seller; nothing else is allowed. */
const PORTAL_STRIPE_PAGE_HEADERS = {
  ...PORTAL_PAGE_HEADERS,
  "content-security-policy": PORTAL_PAGE_HEADERS["content-security-policy"]
    .replace("script-src 'self'", `script-src 'self' ${STRIPE_JS_CSP.script}`)
    .replace("connect-src 'self'", `connect-src 'self' ${STRIPE_JS_CSP.connect}`)
    .replace("frame-ancestors 'none'", `frame-src ${STRIPE_JS_CSP.frame}; frame-ancestors 'none'`),
} as const;

/** The embed script runs on sellers' sites: any origin may load it (as a module too, which needs CORS). */
const EMBED_HEADERS = {
  "access-control-allow-origin": "*",
  "cross-origin-resource-policy": "cross-origin",
  "x-content-type-options": "nosniff",
  "cache-control": "public, max-age=300",
} as const;

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="light dark"><title>till</title></head>
<body><h1>The web app is not built</h1><p>Run <code>npm run build:web</code> (or <code>npm start</code>, which builds it) and reload.</p></body></html>
`;

export interface SocialProvider {
  id: string;
  name: string;
}

export interface ProvidersResponse {
  emailAndPassword: boolean;
  username: boolean;
  social: SocialProvider[];
}

/** The providers of server/config.ts, named for a button ("Continue with …"). */
export function providersOf(config: Config): ProvidersResponse {
  const social: SocialProvider[] = [];
  if (config.github) social.push({ id: "github", name: "GitHub" });
  if (config.oidc) {
    // the configuration has no display name for an OpenID provider; its issuer's host says who it is
    social.push({ id: config.oidc.providerId, name: new URL(config.oidc.issuer).host });
  }
  return { emailAndPassword: true, username: true, social };
}

export function webPlugin(config: Config, distDir: string = WEB_DIST_DIR) {
  return async function web(app: FastifyInstance): Promise<void> {
    const providers = providersOf(config);
    app.get("/api/providers", async (_req, reply) => reply.header("cache-control", "no-cache").send(providers));

    await app.register(fastifyStatic, {
      root: path.join(distDir, "assets"),
      prefix: "/assets/",
      index: false,
      // file names carry a content hash
      immutable: true,
      maxAge: "365d",
    });

    for (const file of ["embed.js", "embed.mjs"]) {
      app.get(`/${file}`, (_req, reply) => {
        if (!existsSync(path.join(distDir, file))) return reply.status(503).type("text/plain; charset=utf-8").send("The web app is not built.");
        reply.headers(EMBED_HEADERS);
        return reply.sendFile(file, distDir, { cacheControl: false });
      });
    }

    const sendPage = (reply: FastifyReply, headers: Record<string, string | undefined> = PAGE_HEADERS) => {
      // checked per request: a build made after the server started is picked up without a restart
      if (!existsSync(path.join(distDir, "index.html"))) {
        return reply.status(503).type("text/html; charset=utf-8").header("cache-control", "no-store").send(NOT_BUILT);
      }
      for (const [name, value] of Object.entries(headers)) if (value !== undefined) reply.header(name, value);
      return reply.sendFile("index.html", distDir, { cacheControl: false });
    };
    // a seat invitation's link carries its token in the query, like the portal's session link: no Referer either
    const noReferrer = new Set<string>(["/portal", "/seats/claim"]);
    // an unpaid order's pay page carries its token in the path and takes cards as the portal does (Stripe.js)
    const stripePages = new Set<string>(["/portal", "/pay/*"]);
    for (const url of PAGE_ROUTES) app.get(url, (_req, reply) => sendPage(reply, stripePages.has(url) ? PORTAL_STRIPE_PAGE_HEADERS : noReferrer.has(url) ? PORTAL_PAGE_HEADERS : PAGE_HEADERS));
    for (const url of CHECKOUT_PAGE_ROUTES) app.get(url, (_req, reply) => sendPage(reply, CHECKOUT_PAGE_HEADERS));
  };
}
