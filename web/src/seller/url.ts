// The seller pages' state that lives in the address: the organization (`org`, its slug), the side (`mode`,
// sandbox or live) and each page's filters and page number, so any view can be shared or reloaded as it is.
// The side also follows the seller from page to page and visit to visit (as the CLI's `till sandbox on`): a link
// without `mode` takes the last one chosen in this browser.

export type Mode = "live" | "sandbox";

const MODE_KEY = "till.mode";

export function params(): URLSearchParams {
  return new URLSearchParams(window.location.search);
}

/** The side the address asks for, else the last one chosen here, else live. */
export function currentMode(): Mode {
  const asked = params().get("mode");
  if (asked === "sandbox" || asked === "live") return asked;
  try {
    return window.localStorage.getItem(MODE_KEY) === "sandbox" ? "sandbox" : "live";
  } catch {
    return "live";
  }
}

export function rememberMode(mode: Mode): void {
  try {
    window.localStorage.setItem(MODE_KEY, mode);
  } catch {
    // private browsing without storage: the address still carries the side
  }
}

/** A link to a seller page on the current organization and side, with `extra` query parameters. */
export function href(path: string, extra: Record<string, string | number | undefined | null> = {}, base: { org?: string | null; mode?: Mode } = {}): string {
  const q = new URLSearchParams();
  const org = base.org !== undefined ? base.org : params().get("org");
  if (org) q.set("org", org);
  q.set("mode", base.mode ?? currentMode());
  for (const [k, v] of Object.entries(extra)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  return `${path}?${q.toString()}`;
}

/** Replaces the address's query parameters (a filter or a page changed) without a reload. */
export function setParams(changes: Record<string, string | number | undefined | null>): void {
  const q = params();
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === null || v === "") q.delete(k);
    else q.set(k, String(v));
  }
  window.history.replaceState(null, "", `${window.location.pathname}?${q.toString()}`);
}

/** A positive page number from the address (1 when absent or not a number). */
export function pageParam(name = "page"): number {
  const n = Number(params().get(name));
  return Number.isInteger(n) && n > 0 ? n : 1;
}
