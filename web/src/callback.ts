// Where a page may send the user after signing in: only a path of this same site. Anything else (another
// origin, a protocol-relative //host, a javascript: URL) falls back to the home page.

export function safeCallbackURL(raw: string | null | undefined, origin: string = window.location.origin): string {
  if (!raw || !raw.startsWith("/") || raw.startsWith("//") || raw.startsWith("/\\")) return "/";
  try {
    // the URL parser drops tabs and newlines ("/\t/evil.example" becomes "//evil.example"): check what it made
    const url = new URL(raw, origin);
    return url.origin === origin ? `${url.pathname}${url.search}${url.hash}` : "/";
  } catch {
    return "/";
  }
}

/** The sign-in page, coming back to `path` afterwards. */
export function signInURL(path: string): string {
  return `/sign-in?callbackURL=${encodeURIComponent(path)}`;
}
