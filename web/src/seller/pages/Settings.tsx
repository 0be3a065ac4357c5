// /settings/<section>: the organization's (this side's) settings, a section at a time (settings-sections.ts), each
// its own address so a link or the back button lands on it. A section's forms (settings-fields.ts) are each saved
// on their own (PATCH /v1/organizations/{id} with only their part) with a toast; the API's field errors show at
// the field. A role that may not change the organization reads them only. /settings opens the first section.
import { lazy, Suspense, useState } from "react";
import { CreateOrganization } from "../CreateOrganization.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { FieldsForm } from "../kit/FieldsForm.js";
import { Layout } from "../Layout.js";
import { Loading, ReadOnly } from "../parts.js";
import { href } from "../url.js";
import { AdminLink } from "./AdminOrganizations.js";
import { SETTINGS_FORMS, type OrgSettings } from "./settings-fields.js";
import { SETTINGS_SECTIONS, type SettingsSlug } from "./settings-sections.js";
import { PaymentProcessor } from "./SettingsProcessor.js";
import { OrganizationStatus } from "./SettingsStatus.js";
import { TaxRegistrations } from "./SettingsTax.js";
import "./settings.css";

// the team's tables and menus and the test clock's dialog: their own chunks, loaded when their section opens
const Team = lazy(() => import("./SettingsTeam.js").then((m) => ({ default: m.Team })));
const DeveloperSettings = lazy(() => import("./SettingsDevelopers.js").then((m) => ({ default: m.DeveloperSettings })));

function SectionNav({ current }: { current: SettingsSlug }) {
  return (
    <nav className="settings-nav" aria-label="Settings sections">
      <ul>
        {SETTINGS_SECTIONS.map((s) => (
          <li key={s.slug}>
            <a href={href(`/settings/${s.slug}`)} aria-current={s.slug === current ? "page" : undefined}>
              {s.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The warning while invoices lack the address or the tax id, as the home and `till orgs billing` give it. */
function MissingLegal({ org }: { org: OrgSettings }) {
  const d = org.invoice_details;
  const missing = [!d?.address ? "address" : null, !d?.tax_id ? "tax id" : null].filter(Boolean);
  if (missing.length === 0) return null;
  return (
    <p className="warning" role="note">
      Your invoices lack your {missing.join(" and ")}: many customers need them. Fill them in below (or <code>till orgs billing set</code>).
    </p>
  );
}

function Forms({ slug, org, mayWrite, onSaved }: { slug: SettingsSlug; org: OrgSettings; mayWrite: boolean; onSaved: (o: OrgSettings) => void }) {
  const { scope } = useSeller();
  return (
    <>
      {(SETTINGS_FORMS[slug] ?? []).map((f) => (
        <FieldsForm<OrgSettings>
          key={`${org.id}-${f.title}`}
          title={f.title}
          intro={f.intro}
          fields={f.fields}
          resource={org}
          save={f.save}
          saved={`Saved: ${f.title.toLowerCase()}.`}
          mayWrite={mayWrite}
          shape={f.shape}
          submit={(body) => v1<OrgSettings>(scope, "PATCH", `/organizations/${org.id}`, { body })}
          onSaved={onSaved}
        />
      ))}
    </>
  );
}

function Section({ slug, org, mayWrite, onSaved }: { slug: SettingsSlug; org: OrgSettings; mayWrite: boolean; onSaved: (o: OrgSettings) => void }) {
  const forms = <Forms slug={slug} org={org} mayWrite={mayWrite} onSaved={onSaved} />;
  switch (slug) {
    case "organization":
      return (
        <>
          <AdminLink />
          <OrganizationStatus organizationId={org.id} mayWrite={mayWrite} />
          <Forms
            slug={slug}
            org={org}
            mayWrite={mayWrite}
            onSaved={(o) => {
              const slugNow = (o as { slug?: string }).slug;
              // the address names the organization by its short name: a new one reloads the page under it
              if (slugNow && slugNow !== new URLSearchParams(window.location.search).get("org")) window.location.assign(href("/settings/organization", {}, { org: slugNow }));
              onSaved(o);
            }}
          />
          <CreateOrganization onCreated={(s) => window.location.assign(href("/", {}, { org: s, mode: "live" }))} />
        </>
      );
    case "legal":
      return (
        <>
          <MissingLegal org={org} />
          {forms}
        </>
      );
    case "payments":
      return (
        <>
          <PaymentProcessor mayWrite={mayWrite} />
          {forms}
        </>
      );
    case "tax":
      return (
        <>
          <TaxRegistrations org={org} mayWrite={mayWrite} onSaved={onSaved} />
          {forms}
        </>
      );
    case "team":
      return (
        <Suspense fallback={<Loading loading error={undefined} />}>
          <Team />
        </Suspense>
      );
    case "developers":
      return (
        <Suspense fallback={<Loading loading error={undefined} />}>
          <DeveloperSettings />
        </Suspense>
      );
    default:
      return forms;
  }
}

export function Settings({ section = "organization" }: { section?: SettingsSlug }) {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("organizations");
  // on the sandbox side, the twin organization's own id
  const id = scope.organizationId;
  const loaded = useLoad(() => v1<OrgSettings>(scope, "GET", `/organizations/${id}`), id);
  const [saved, setSaved] = useState<OrgSettings | null>(null);
  const org = saved ?? loaded.data;
  const meta = SETTINGS_SECTIONS.find((s) => s.slug === section) ?? SETTINGS_SECTIONS[0];
  return (
    <Layout title={`Settings · ${meta.label}`}>
      <div className="settings">
        <SectionNav current={section} />
        <div className="settings-body">
          <p className="settings-intro">{meta.intro}</p>
          {!mayWrite && section !== "team" && section !== "developers" && <ReadOnly what="change the organization" />}
          <Loading loading={loaded.loading} error={loaded.error} />
          {org && <Section slug={section} org={org} mayWrite={mayWrite} onSaved={setSaved} />}
        </div>
      </div>
    </Layout>
  );
}
