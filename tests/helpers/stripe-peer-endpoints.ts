// The stand-in's webhook endpoints (create, retrieve, list, delete), written from Stripe's API reference: an
// endpoint's URL must be one Stripe could reach (no loopback or private host; HTTPS in live mode), an account has
// at most 16 per mode, and the signing secret is in the creation's answer only. Events go out through peer.emit.
import { randomBytes } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { StripeFailure, type Authed, type PeerEndpoint, type PeerRoute, type StripePeer } from "./stripe-peer.js";

export function registerWebhookEndpoints(peer: StripePeer, route: PeerRoute): void {
  route("POST", "/v1/webhook_endpoints", "webhook_write", (auth, req) => createEndpoint(peer, auth, req));
  route("GET", "/v1/webhook_endpoints", "webhook_read", (auth) => {
    const data = [...peer.endpoints.values()].filter((e) => e.account === auth.account.id && e.livemode === auth.livemode).map(({ secret: _secret, ...e }) => e);
    return { object: "list", url: "/v1/webhook_endpoints", has_more: false, data };
  });
  route("GET", "/v1/webhook_endpoints/:id", "webhook_read", (auth, req) => {
    const { secret: _secret, ...endpoint } = endpointOf(peer, auth, req);
    return endpoint;
  });
  route("DELETE", "/v1/webhook_endpoints/:id", "webhook_write", (auth, req) => {
    const endpoint = endpointOf(peer, auth, req);
    peer.endpoints.delete(endpoint.id);
    return { id: endpoint.id, object: "webhook_endpoint", deleted: true };
  });
}

function createEndpoint(peer: StripePeer, auth: Authed, req: FastifyRequest): PeerEndpoint {
  const p = peer.params(req);
  if (typeof p.url !== "string") throw new StripeFailure(400, { type: "invalid_request_error", code: "parameter_missing", param: "url", message: "Missing required param: url." });
  if (!Array.isArray(p.enabled_events) || p.enabled_events.length === 0) {
    throw new StripeFailure(400, { type: "invalid_request_error", code: "parameter_missing", param: "enabled_events", message: "Missing required param: enabled_events." });
  }
  let url: URL;
  try {
    url = new URL(p.url);
  } catch {
    throw new StripeFailure(400, { type: "invalid_request_error", code: "url_invalid", param: "url", message: "Invalid URL: " + p.url });
  }
  if (isPrivateHost(url.hostname)) {
    throw new StripeFailure(400, {
      type: "invalid_request_error",
      code: "url_invalid",
      param: "url",
      message: "Invalid URL: URL must be publicly accessible. Consider using a tool like Stripe CLI to test webhooks locally: https://github.com/stripe/stripe-cli",
    });
  }
  if (auth.livemode && url.protocol !== "https:") {
    throw new StripeFailure(400, { type: "invalid_request_error", code: "url_invalid", param: "url", message: "Invalid URL: URL must use HTTPS in live mode." });
  }
  const mine = [...peer.endpoints.values()].filter((e) => e.account === auth.account.id && e.livemode === auth.livemode);
  if (mine.length >= 16) {
    throw new StripeFailure(400, { type: "invalid_request_error", message: `You have reached the maximum of 16 ${auth.livemode ? "live" : "test"} webhook endpoints.` });
  }
  const endpoint: PeerEndpoint = {
    id: `we_${randomBytes(12).toString("hex")}`,
    object: "webhook_endpoint",
    url: p.url,
    enabled_events: p.enabled_events.map(String),
    api_version: typeof p.api_version === "string" ? p.api_version : null,
    description: typeof p.description === "string" ? p.description : null,
    metadata: (p.metadata ?? {}) as Record<string, string>,
    livemode: auth.livemode,
    status: "enabled",
    created: Math.floor(Date.now() / 1000),
    secret: `whsec_${randomBytes(24).toString("base64url")}`,
    account: auth.account.id,
  };
  peer.endpoints.set(endpoint.id, endpoint);
  return endpoint;
}

function endpointOf(peer: StripePeer, auth: Authed, req: FastifyRequest): PeerEndpoint {
  const { id } = req.params as { id: string };
  const endpoint = peer.endpoints.get(id);
  if (!endpoint || endpoint.account !== auth.account.id || endpoint.livemode !== auth.livemode) {
    throw new StripeFailure(404, { type: "invalid_request_error", code: "resource_missing", param: "id", message: `No such webhook endpoint: '${id}'` });
  }
  return endpoint;
}

function isPrivateHost(host: string): boolean {
  return /^(localhost|127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|\[::1\]|::1|0\.0\.0\.0)/.test(host) || host.endsWith(".localhost") || host.endsWith(".local");
}
