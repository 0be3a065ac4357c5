// A minimal browser-like HTTP client: keeps cookies, sends Origin like a browser would (better-auth's
// CSRF checks want it), and returns status, headers and parsed JSON.
export interface Res<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class Client {
  readonly cookies = new Map<string, string>();
  origin: string;

  constructor(
    readonly base: string,
    opts: { origin?: string } = {},
  ) {
    this.origin = opts.origin ?? base;
  }

  get sessionToken(): string | undefined {
    const raw = this.cookies.get("better-auth.session_token");
    return raw ? decodeURIComponent(raw).split(".")[0] : undefined;
  }

  async request<T = unknown>(
    method: string,
    path: string,
    opts: { json?: unknown; form?: Record<string, string>; headers?: Record<string, string>; redirect?: boolean } = {},
  ): Promise<Res<T>> {
    const headers: Record<string, string> = { origin: this.origin, ...opts.headers };
    if (this.cookies.size > 0 && !("cookie" in headers)) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    }
    let body: string | undefined;
    if (opts.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(opts.json);
    } else if (opts.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(opts.form).toString();
    }
    const url = path.startsWith("http") ? path : `${this.base}${path}`;
    const res = await fetch(url, { method, headers, body, redirect: opts.redirect ? "follow" : "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair = "", ...attrs] = c.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      const expired = attrs.some((a) => /max-age=0\b/i.test(a.trim())) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = unknown>(path: string, headers?: Record<string, string>) {
    return this.request<T>("GET", path, { headers });
  }

  post<T = unknown>(path: string, json: unknown = {}, headers?: Record<string, string>) {
    return this.request<T>("POST", path, { json, headers });
  }

  /** Signs up (and so signs in) a fresh user; returns the user. */
  async signUp(email: string, password = "correct-horse-battery", name = "Test User", extra: Record<string, unknown> = {}) {
    const res = await this.post<{ user: { id: string; email: string }; token: string }>("/api/auth/sign-up/email", {
      email,
      password,
      name,
      ...extra,
    });
    if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${res.text}`);
    return res.body;
  }
}

let counter = 0;
export const uniqueEmail = (tag = "user") => `${tag}-${Date.now().toString(36)}-${counter++}@example.com`;
