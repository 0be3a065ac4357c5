// The frame of every seller page: a top bar (the organization picker, the sandbox/live switch shown on every
// page with a banner while in the sandbox, who is signed in), the side navigation grouped as a seller thinks of
// the work (sales, catalog, customers, usage, developers, settings; each section with its icon; a Menu button on a
// phone), and the page's header with
// its main action. The toasts of the page's results are the app's (Toasts.tsx, around every page).
import { useEffect, useState, type ReactNode } from "react";
import { signOut } from "../api.js";
import { useSeller } from "./context.js";
import { SectionIcon } from "./icons.js";
import { href, rememberMode, type Mode } from "./url.js";

interface Section {
  path: string;
  label: string;
}

/** The navigation's groups, in the order a seller's day goes: what sold, what is sold, who bought, usage, code,
 *  settings. */
export const SECTION_GROUPS: ReadonlyArray<{ label: string | null; sections: readonly Section[] }> = [
  { label: null, sections: [{ path: "/", label: "Home" }] },
  {
    label: "Sales",
    sections: [
      { path: "/orders", label: "Orders" },
      { path: "/subscriptions", label: "Subscriptions" },
    ],
  },
  {
    label: "Catalog",
    sections: [
      { path: "/products", label: "Products" },
      { path: "/discounts", label: "Discounts" },
      { path: "/checkout-links", label: "Checkout links" },
      { path: "/custom-fields", label: "Custom fields" },
    ],
  },
  { label: "Customers", sections: [{ path: "/customers", label: "Customers" }] },
  { label: "Usage", sections: [{ path: "/meters", label: "Meters" }] },
  {
    label: "Developers",
    sections: [
      { path: "/api-keys", label: "API keys" },
      { path: "/webhooks", label: "Webhooks" },
    ],
  },
  { label: "Settings", sections: [{ path: "/settings", label: "Settings" }] },
];

export const SECTIONS: readonly Section[] = SECTION_GROUPS.flatMap((g) => g.sections);

/** The section a path belongs to ("/orders/…" → "/orders"). */
export function sectionOf(pathname: string): string {
  const first = pathname.split("/")[1] ?? "";
  return first ? `/${first}` : "/";
}

function ModeSwitch() {
  const { mode, organization } = useSeller();
  const sandbox = mode === "sandbox";
  const flip = () => {
    const next: Mode = sandbox ? "live" : "sandbox";
    rememberMode(next);
    // a detail page's row exists on one side only: the other side opens the section's list
    window.location.assign(href(sectionOf(window.location.pathname), {}, { org: organization.slug, mode: next }));
  };
  return (
    <button type="button" role="switch" aria-checked={sandbox} className={`mode-switch ${mode}`} onClick={flip}>
      <span className="visually-hidden">Sandbox</span>
      <span aria-hidden="true">{sandbox ? "Sandbox" : "Live"}</span>
    </button>
  );
}

function OrganizationPicker() {
  const { organizations, organization, mode } = useSeller();
  if (organizations.length < 2) return <span className="org-name">{organization.name}</span>;
  return (
    <label className="org-picker">
      <span className="visually-hidden">Organization</span>
      <select
        value={organization.slug}
        onChange={(e) => window.location.assign(href(sectionOf(window.location.pathname), {}, { org: e.target.value, mode }))}
      >
        {organizations.map((o) => (
          <option key={o.id} value={o.slug}>
            {o.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The sections' links in their groups: a column at the side on a wide screen; on a phone, behind a Menu button
 *  (aria-expanded) that opens them over the page. Escape closes it and gives the focus back to the button. */
function Sections({ section }: { section: string }) {
  const [open, setOpen] = useState(false);
  const current = SECTIONS.find((s) => s.path === section)?.label;
  return (
    <nav
      className={`sections${open ? " open" : ""}`}
      aria-label="Sections"
      onKeyDown={(e) => {
        if (e.key === "Escape" && open) {
          setOpen(false);
          document.getElementById("menu-toggle")?.focus();
        }
      }}
    >
      <button type="button" id="menu-toggle" className="menu-toggle" aria-expanded={open} aria-controls="sections-list" onClick={() => setOpen((o) => !o)}>
        Menu{current ? <span className="menu-current"> · {current}</span> : null}
      </button>
      <div id="sections-list" className="section-groups">
        {SECTION_GROUPS.map((g) => (
          <div key={g.label ?? "home"} className="section-group">
            {g.label && (
              <p className="group-label" id={`group-${g.label}`}>
                {g.label}
              </p>
            )}
            <ul aria-labelledby={g.label ? `group-${g.label}` : undefined}>
              {g.sections.map((s) => (
                <li key={s.path}>
                  <a href={href(s.path)} aria-current={s.path === section ? "page" : undefined}>
                    <SectionIcon name={s.path === "/" ? "home" : s.path.slice(1)} />
                    {s.label}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </div>
    </nav>
  );
}

/** A page of the seller's app: its title (the page's one h1), the main action beside it, and the content. */
export function Layout({ title, action, back, children }: { title: string; action?: ReactNode; back?: { href: string; label: string }; children: ReactNode }) {
  const { user, mode, organization } = useSeller();
  const section = sectionOf(window.location.pathname);
  useEffect(() => {
    document.title = `${title} · ${organization.name}${mode === "sandbox" ? " (sandbox)" : ""} · till`;
  }, [title, organization.name, mode]);
  return (
      <div className={`seller-app ${mode}`}>
        <a className="skip" href="#main">
          Skip to content
        </a>
        <header className="site seller-bar">
          <a href={href("/")} className="brand">
            till
          </a>
          <OrganizationPicker />
          <ModeSwitch />
          <span className="who">{user.email}</span>
          <button type="button" className="link" onClick={() => void signOut().then(() => window.location.assign("/"))}>
            Sign out
          </button>
        </header>
        {mode === "sandbox" && (
          <p className="sandbox-banner" role="note">
            Sandbox: test data only.<span className="banner-more"> Nothing here is charged, and live shows none of it.</span>
          </p>
        )}
        <div className="shell">
          <Sections section={section} />
          <main id="main" className="seller-main">
            {back && (
              <p className="back">
                <a href={back.href}>← {back.label}</a>
              </p>
            )}
            <div className="page-header">
              <h1 tabIndex={-1}>{title}</h1>
              {action && <div className="page-action">{action}</div>}
            </div>
            {children}
          </main>
        </div>
      </div>
  );
}
