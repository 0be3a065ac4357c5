// Calls to the till server from the pages: /api/auth/* (better-auth) with the session cookie, and the
// server's own /api/providers. Errors come back as values carrying the server's own message.

export interface ApiError {
  status: number;
  /** better-auth's `code` (e.g. INVALID_EMAIL_OR_PASSWORD), or the OAuth `error` of the device endpoints. */
  code: string | undefined;
  message: string;
  /** A 422's errors by field: the body's path ("invoice_details.tax_id") and its message, shown at the field. */
  fields?: Array<{ path: string; message: string }>;
}

export type Result<T> = { ok: true; data: T } | { ok: false; error: ApiError };

const NETWORK_ERROR: ApiError = {
  status: 0,
  code: "NETWORK_ERROR",
  message: "Could not reach the server. Check your connection and try again.",
};

const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined);

/** 75 → "in 75 seconds", 1800 → "in 30 minutes". */
function inTime(seconds: number): string {
  if (seconds < 120) return `in ${seconds} second${seconds === 1 ? "" : "s"}`;
  return `in ${Math.ceil(seconds / 60)} minutes`;
}

// better-auth answers {message, code}; the device endpoints answer OAuth's {error, error_description};
// its rate limiter answers 429 {message} with X-Retry-After (seconds), which the page adds in words
function errorOf(res: Response, body: unknown): ApiError {
  const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const message = str(b.message) ?? str(b.error_description) ?? str(b.detail) ?? `The server answered ${res.status}.`;
  if (res.status === 429) {
    const wait = Math.ceil(Number(res.headers.get("x-retry-after") ?? res.headers.get("retry-after")));
    const when = Number.isFinite(wait) && wait > 0 ? ` You can try again ${inTime(wait)}.` : "";
    return { status: 429, code: "TOO_MANY_REQUESTS", message: `${message}${when}` };
  }
  return { status: res.status, code: str(b.code) ?? str(b.error), message };
}

export async function request<T>(method: "GET" | "POST", url: string, body?: unknown): Promise<Result<T>> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      credentials: "include",
      headers: body === undefined ? undefined : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { ok: false, error: NETWORK_ERROR };
  }
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return res.ok ? { ok: true, data: parsed as T } : { ok: false, error: errorOf(res, parsed) };
}

export const auth = {
  get: <T>(path: string) => request<T>("GET", `/api/auth${path}`),
  post: <T>(path: string, body: unknown = {}) => request<T>("POST", `/api/auth${path}`, body),
};

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  username?: string | null;
  isAnonymous?: boolean | null;
}

export interface Session {
  user: SessionUser;
  session: { id: string; expiresAt: string };
}

/** The signed-in session, null when signed out. */
export async function getSession(): Promise<Result<Session | null>> {
  return auth.get<Session | null>("/get-session");
}

export async function signOut(): Promise<Result<{ success: boolean }>> {
  return auth.post<{ success: boolean }>("/sign-out");
}

export interface Providers {
  emailAndPassword: boolean;
  username: boolean;
  social: { id: string; name: string }[];
}

export async function getProviders(): Promise<Result<Providers>> {
  return request<Providers>("GET", "/api/providers");
}
