// What the benches' parents call the served app with: `call` (JSON in and out, a 200 or 201 or it throws with
// the answer's start) and `benchSeller`, the signed-up seller with an organization and an API key without a
// per-key rate limit (a load run sends tens of thousands of requests with it). Loopback only.

export interface Called<T> {
  json: T;
  headers: Headers;
  text: string;
}

export async function call<T>(base: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<Called<T>> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { origin: base, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
  return { json: JSON.parse(text) as T, headers: res.headers, text };
}

export interface BenchSeller {
  /** The owner's session cookie (better-auth.session_token=…), for /api/auth calls. */
  cookie: string;
  /** The same session as a bearer token. */
  sessionToken: string;
  organizationId: string;
  apiKey: string;
  /** `{ authorization: "Bearer <apiKey>" }`, for /v1 calls. */
  auth: { authorization: string };
}

/** Signs a seller up (`tag` names its email, organization and key) with an organization and an unlimited API key. */
export async function benchSeller(base: string, tag = "bench"): Promise<BenchSeller> {
  const signUp = await call<{ token: string }>(base, "POST", "/api/auth/sign-up/email", {
    email: `${tag}-${Date.now()}@example.com`,
    password: "correct-horse-battery",
    name: tag,
  });
  const cookie = signUp.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .filter((c) => c?.startsWith("better-auth.session_token="))
    .join("; ");
  const organizationId = await benchOrganization(base, cookie, tag);
  const apiKey = await benchKey(base, cookie, organizationId, tag);
  return { cookie, sessionToken: signUp.json.token, organizationId, apiKey, auth: { authorization: `Bearer ${apiKey}` } };
}

/** Another organization of the signed-in seller (`cookie`). */
export async function benchOrganization(base: string, cookie: string, tag: string): Promise<string> {
  const org = await call<{ id: string }>(base, "POST", "/api/auth/organization/create", { name: tag, slug: `${tag}-${Date.now()}` }, { cookie });
  return org.json.id;
}

/** An API key of the organization with every billing scope and no per-key rate limit. */
export async function benchKey(base: string, cookie: string, organizationId: string, tag: string): Promise<string> {
  const key = await call<{ key: string }>(base, "POST", "/api/auth/api-key/create", { organizationId, name: tag, rateLimitEnabled: false }, { cookie });
  return key.json.key;
}
