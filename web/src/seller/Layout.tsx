// The frame of every seller page: the organization picker, the sandbox/live switch (shown on every page, and a
// banner while in the sandbox), the navigation between sections, and who is signed in.
import { useEffect, useState, type ReactNode } from "react";
import { signOut } from "../api.js";
import { useSeller } from "./context.js";
import { href, rememberMode, type Mode } from "./url.js";

export const SECTIONS = [
  { path: "/", label: "Home" },
  { path: "/products", label: "Products" },
  { path: "/orders", label: "Orders" },
  { path: "/customers", label: "Customers" },
  { path: "/subscriptions", label: "Subscriptions" },
  { path: "/checkout-links", label: "Checkout links" },
  { path: "/discounts", label: "Discounts" },
  { path: "/meters", label: "Meters" },
  { path: "/webhooks", label: "Webhooks" },
  { path: "/api-keys", label: "API keys" },
  { path: "/settings", label: "Settings" },
] as const;

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

/** The sections' links: a row on a wide screen; on a phone, behind a Menu button (aria-expanded) that opens them. */
function Sections({ section }: { section: string }) {
  const [open, setOpen] = useState(false);
  const current = SECTIONS.find((s) => s.path === section)?.label;
  return (
    <nav className={`sections${open ? " open" : ""}`} aria-label="Sections">
      <button type="button" className="menu-toggle" aria-expanded={open} aria-controls="sections-list" onClick={() => setOpen((o) => !o)}>
        Menu{current ? <span className="menu-current"> · {current}</span> : null}
      </button>
      <ul id="sections-list">
        {SECTIONS.map((s) => (
          <li key={s.path}>
            <a href={href(s.path)} aria-current={s.path === section ? "page" : undefined}>
              {s.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function Layout({ title, children }: { title: string; children: ReactNode }) {
  const { user, mode, organization } = useSeller();
  const section = sectionOf(window.location.pathname);
  useEffect(() => {
    document.title = `${title} · ${organization.name}${mode === "sandbox" ? " (sandbox)" : ""} · till`;
  }, [title, organization.name, mode]);
  return (
    <div className={`seller ${mode}`}>
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
          Sandbox: test data only. Nothing here is charged, and live shows none of it.
        </p>
      )}
      <Sections section={section} />
      <main id="main" className="seller-main">
        <h1 tabIndex={-1}>{title}</h1>
        {children}
      </main>
    </div>
  );
}
