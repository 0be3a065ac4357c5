// Where the customer portal keeps its session: the customer session's token, the page to go back to and the seller
// shown while signed out (sessionStorage, this tab only), and the tokens a sign-in or email-change link carries.
const STORE_KEY = "till.portal";

interface Stored {
  token: string | null;
  returnUrl: string | null;
  /** The seller of the last session (for "Back to …" and a new code by email once it expired). */
  seller: { name: string; slug: string } | null;
}

const EMPTY: Stored = { token: null, returnUrl: null, seller: null };

function readStore(): Stored {
  try {
    const v = JSON.parse(sessionStorage.getItem(STORE_KEY) ?? "null") as Partial<Stored> | null;
    const seller = v?.seller && typeof v.seller.name === "string" && typeof v.seller.slug === "string" ? { name: v.seller.name, slug: v.seller.slug } : null;
    return { token: typeof v?.token === "string" ? v.token : null, returnUrl: typeof v?.returnUrl === "string" ? v.returnUrl : null, seller };
  } catch {
    return EMPTY;
  }
}

function writeStore(v: Stored): void {
  try {
    sessionStorage.setItem(STORE_KEY, JSON.stringify(v));
  } catch {
    // storage refused (private mode): the page still works until it is reloaded
  }
}

/**
 * The token of this tab's portal session: a new one from ?customer_session_token= (then taken out of the
 * address bar, so it stays out of the history and of Referer headers), or the one kept in sessionStorage.
 */
export function takeSessionToken(): string | null {
  const url = new URL(window.location.href);
  const fresh = url.searchParams.get("customer_session_token");
  if (fresh !== null) {
    url.searchParams.delete("customer_session_token");
    window.history.replaceState(null, "", `${url.pathname}${url.search}${url.hash}`);
    // another link may be for another customer or seller: forget what the last session said
    if (fresh) writeStore({ ...EMPTY, token: fresh });
    return fresh || readStore().token;
  }
  return readStore().token;
}

/** The token of an email update link (`email_update_token`), taken off the address bar; null when there is none. */
export function takeEmailUpdateToken(): string | null {
  const url = new URL(window.location.href);
  const token = url.searchParams.get("email_update_token");
  if (token === null) return null;
  url.searchParams.delete("email_update_token");
  window.history.replaceState(null, "", `${url.pathname}${url.search}${url.hash}`);
  return token || null;
}

/** A session made here by a code mailed to the customer. */
export function keepSessionToken(token: string): void {
  writeStore({ ...EMPTY, token });
}

/** The session went bad (401): forget its token, keep where "back" leads. */
export function forgetSessionToken(): void {
  writeStore({ ...readStore(), token: null });
}

/** The seller's return URL from the session's introspection, when it is a http(s) URL. */
export function rememberReturnUrl(raw: string | null): string | null {
  const safe = safeReturnUrl(raw);
  writeStore({ ...readStore(), returnUrl: safe });
  return safe;
}

export const storedReturnUrl = (): string | null => safeReturnUrl(readStore().returnUrl);

export function rememberSeller(seller: { name: string; slug: string } | null): void {
  writeStore({ ...readStore(), seller });
}

export const storedSeller = () => readStore().seller;

export function safeReturnUrl(raw: string | null | undefined): string | null {
  if (!raw) return null;
  try {
    const u = new URL(raw);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : null;
  } catch {
    return null;
  }
}
