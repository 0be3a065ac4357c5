// The form that creates an organization (better-auth's route, with the session cookie); its slug is made from
// the name, as `till orgs create` makes it. It also asks for the legal details invoices print (legal name,
// address, tax id), saved on the new organization with PATCH /v1/organizations/{id}; they can wait — the home
// and the settings warn while the address or tax id is missing, as the CLI does.
import { useState, type FormEvent } from "react";
import { createOrganization, slugify } from "../home-api.js";
import { Field, Status, type Tone } from "../ui.js";
import { v1 } from "./api.js";

const text = (f: FormData, name: string) => String(f.get(name) ?? "").trim() || null;

/** The legal details the form was given, or null when none was. */
function legalDetails(f: FormData): Record<string, unknown> | null {
  const country = text(f, "org_country")?.toUpperCase() ?? null;
  const address = country ? { line1: text(f, "org_line1"), postal_code: text(f, "org_postal_code"), city: text(f, "org_city"), country } : null;
  const details = { name: text(f, "org_legal_name"), address, tax_id: text(f, "org_tax_id") };
  return details.name || address || details.tax_id ? details : null;
}

export function CreateOrganization({ onCreated }: { onCreated: (slug: string) => void }) {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ tone: Tone; text: string } | undefined>(undefined);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const name = String(f.get("name") ?? "").trim();
    const slug = slugify(name);
    if (!slug) return setStatus({ tone: "error", text: "Give the organization a name with letters or digits." });
    setBusy(true);
    setStatus({ tone: "info", text: "Creating the organization…" });
    const r = await createOrganization(name, slug);
    if (!r.ok) {
      setBusy(false);
      return setStatus({ tone: "error", text: r.error.message });
    }
    const details = legalDetails(f);
    if (details) {
      const saved = await v1<unknown>({ organizationId: r.data.id, sandbox: false }, "PATCH", `/organizations/${r.data.id}`, { body: { invoice_details: details } });
      if (!saved.ok) {
        setBusy(false);
        return setStatus({ tone: "error", text: `Created ${name}, but its legal details were not saved: ${saved.error.message} Set them in its settings.` });
      }
    }
    setBusy(false);
    form.reset();
    setStatus({ tone: "success", text: `Created ${name} (${r.data.slug}).` });
    onCreated(r.data.slug);
  }

  return (
    <section aria-labelledby="create-org" className="create-org">
      <h2 id="create-org">Create an organization</h2>
      <form onSubmit={(e) => void onSubmit(e)} aria-label="Create an organization" className="stack">
        <Field label="Organization name" name="name" required maxLength={100} hint="Its slug is made from the name." />
        <fieldset>
          <legend>Legal details on invoices</legend>
          <p className="hint">Many customers need your address and tax id on invoices; you can add them later in the settings.</p>
          <Field label="Business's legal name" name="org_legal_name" optional maxLength={200} autoComplete="organization" />
          <Field label="Street address" name="org_line1" optional autoComplete="address-line1" />
          <Field label="Postal or ZIP code" name="org_postal_code" optional autoComplete="postal-code" />
          <Field label="Town or city" name="org_city" optional autoComplete="address-level2" />
          <Field label="Country code (e.g. FR)" name="org_country" optional maxLength={2} autoComplete="country" />
          <Field label="VAT or tax id" name="org_tax_id" optional />
        </fieldset>
        <button type="submit" className="primary" disabled={busy}>
          Create organization
        </button>
      </form>
      <Status tone={status?.tone}>{status?.text}</Status>
    </section>
  );
}
