// What the request log may show of a URL. Several URLs carry a credential: the customer portal's link
// (?customer_session_token=), signed file downloads (?signature=), presigned upload parts (?token=), the
// device page (?user_code=), password-reset links (/reset-password/{token}) and the checkout's client secret
// (/checkouts/client/{secret}), and a checkout link's (/checkout-links/{secret}/redirect). Their values are replaced before a log line is written.
const SECRET_PARAMS = /^(token|signature|customer_session_token|user_code|code|client_secret)$/i;
const SECRET_SEGMENTS = /(\/reset-password\/|\/checkout\/|\/checkouts\/client\/|\/checkout-links\/(?=till_cl_))[^/?#]+/g;

export function redactUrl(url: string): string {
  const q = url.indexOf("?");
  const path = (q < 0 ? url : url.slice(0, q)).replace(SECRET_SEGMENTS, "$1[redacted]");
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
      return eq >= 0 && SECRET_PARAMS.test(name) ? `${key}=[redacted]` : pair;
    });
  return `${path}?${params.join("&")}`;
}

/** Fastify's request serializer with the URL redacted. */
export const requestSerializer = (req: { method: string; url: string; hostname?: string; ip?: string }) => ({
  method: req.method,
  url: redactUrl(req.url),
  hostname: req.hostname,
  remoteAddress: req.ip,
});
