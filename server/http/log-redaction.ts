// What the request log may show of a URL. Several URLs carry a credential: the customer portal's link
// (?customer_session_token=), signed file downloads (?signature=), presigned upload parts (?token=), the
// device page (?user_code=), password-reset links (/reset-password/{token}) and the checkout's client secret
// (/checkouts/client/{secret}), and a checkout link's (/checkout-links/{secret}/redirect). Their values are replaced
// before a log line is written. The router decodes %xx escapes before it matches a path, so
// /v1/checkouts/%63lient/{secret} is the client route: a path is redacted as the router reads it too, and till's own
// credentials are redacted by their prefix wherever they appear (a 404's path, another case, %2F for a slash).
const SECRET_PARAMS = /^(token|signature|customer_session_token|user_code|code|client_secret)$/i;
const SECRET_SEGMENTS = /(\/reset-password\/+|\/checkout\/+|\/checkouts\/+client\/+|\/checkout-links\/+(?=till_cl_))[^/?#]+/gi;
const SECRET_VALUES = /(till_(?:c|cl|cst|seat|live|test)_)[A-Za-z0-9_-]+/gi;

const redactPlain = (path: string) => path.replace(SECRET_SEGMENTS, "$1[redacted]").replace(SECRET_VALUES, "$1[redacted]");

function redactPath(raw: string): string {
  const redacted = redactPlain(raw);
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return redacted; // a malformed escape: the router reads no other path either
  }
  if (decoded === raw || redactPlain(decoded) === decoded) return redacted;
  // a secret spelled with escapes: logged as the router read it, redacted (control characters escaped again)
  return Array.from(redactPlain(decoded), (c) => (c.charCodeAt(0) < 0x20 || c === "\u007f" ? encodeURIComponent(c) : c)).join("");
}

export function redactUrl(url: string): string {
  const q = url.indexOf("?");
  const path = redactPath(q < 0 ? url : url.slice(0, q));
  if (q < 0) return path;
  const params = url
    .slice(q + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const key = eq < 0 ? pair : pair.slice(0, eq);
      let name = key;
      try {
        name = decodeURIComponent(key);
      } catch {
        // a malformed key is logged as it came
      }
      return eq >= 0 && SECRET_PARAMS.test(name) ? `${key}=[redacted]` : redactPath(pair);
    });
  return `${path}?${params.join("&")}`;
}

/** What the request serializer reads of a request (Fastify's request, or the node one Fastify passes early). */
interface LoggedRequest {
  method: string;
  url: string;
  hostname?: string;
  ip?: string;
}

/**
 * The client's address of each request, read while its connection is open (rememberAddress, an onRequest hook):
 * `request.ip` reads the socket, which a request answered after its client went away (an aborted or oversized
 * body) no longer has, and then throws.
 */
const addresses = new WeakMap<object, string | undefined>();

/** Reads the request's address, or undefined when its connection is gone already. */
function readAddress(req: LoggedRequest): string | undefined {
  try {
    return req.ip;
  } catch {
    return undefined;
  }
}

/** Keeps the request's address for its log line (called when the request comes in). */
export function rememberAddress(req: LoggedRequest): void {
  addresses.set(req, readAddress(req));
}

/** Fastify's request serializer with the URL redacted; it never throws (a log line is written from event listeners). */
export function requestSerializer(req: LoggedRequest) {
  return {
    method: String(req.method),
    url: typeof req.url === "string" ? redactUrl(req.url) : undefined,
    hostname: readHostname(req),
    remoteAddress: addresses.has(req) ? addresses.get(req) : readAddress(req),
  };
}

function readHostname(req: LoggedRequest): string | undefined {
  try {
    return req.hostname;
  } catch {
    return undefined;
  }
}
