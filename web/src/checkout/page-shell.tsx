// The hosted checkout's frame: which checkout the address names (/checkout/{client_secret}[/confirmation]), whether
// it is embedded in a seller's site (embed=true&embed_origin=…, through /embed.js), the ?theme= colours, and the
// page shell (title, the embedded close button).
import { useEffect, type ReactNode } from "react";
import { t } from "../i18n/intl.js";

export function routeOf(pathname: string): { secret: string; confirmation: boolean } {
  const parts = pathname.split("/").filter(Boolean); // ["checkout", secret, "confirmation"?]
  return { secret: decodeURIComponent(parts[1] ?? ""), confirmation: parts[2] === "confirmation" };
}

export function embedOf(search: string): { embedded: boolean; queryOrigin: string | null } {
  const q = new URLSearchParams(search);
  let origin: string | null = null;
  try {
    const raw = q.get("embed_origin");
    if (raw) {
      const u = new URL(raw);
      if (u.protocol === "http:" || u.protocol === "https:") origin = u.origin;
    }
  } catch {
    origin = null;
  }
  return { embedded: q.get("embed") === "true" && window.parent !== window, queryOrigin: origin };
}

/**
 * Applies ?theme=: `dark`, else light — whatever the buyer's system prefers, because the seller chose the look of
 * the page their buyers pay on (Polar's checkout theme is light by default too).
 */
export function applyTheme(search: string, embedded: boolean): void {
  const theme = new URLSearchParams(search).get("theme");
  const root = document.documentElement;
  root.dataset.theme = theme === "dark" ? "dark" : "light";
  if (embedded) root.dataset.embed = "true";
}

export function Shell(props: { title: string; wide?: boolean; embedded: boolean; onClose: () => void; closeDisabled: boolean; children: ReactNode }) {
  useEffect(() => {
    document.title = `${props.title} · till`;
  }, [props.title]);
  return (
    <main className={props.wide ? "checkout wide" : "checkout"}>
      {props.embedded && (
        <button type="button" className="close" onClick={props.onClose} disabled={props.closeDisabled} aria-label={t("page.close")}>
          ×
        </button>
      )}
      <h1 tabIndex={-1}>{props.title}</h1>
      {props.children}
    </main>
  );
}
