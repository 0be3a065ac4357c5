// The settings' tax registrations: the places the organization collects tax in, each removable, a form that adds
// one (a country, and a state or province where tax is by state), and whether prices include tax. Saved with
// PATCH /v1/organizations/{id} `tax_settings`, as `till orgs tax add|remove` does.
import { useState, type FormEvent } from "react";
import { CheckboxField, Field, Status, type Tone } from "../../ui.js";
import { v1 } from "../api.js";
import { useSeller } from "../context.js";
import { ReadOnly } from "../parts.js";
import type { OrgSettings } from "./settings-fields.js";

type Registration = { country: string; state?: string | null };

const place = (r: Registration) => `${r.country}${r.state ? `-${r.state}` : ""}`;

export function TaxRegistrations({ org, mayWrite, onSaved }: { org: OrgSettings; mayWrite: boolean; onSaved: (o: OrgSettings) => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  const regs: Registration[] = org.tax_settings?.registrations ?? [];
  const included = org.tax_settings?.prices_include_tax ?? false;
  async function save(registrations: Registration[], pricesIncludeTax: boolean, done: string) {
    const body = { tax_settings: { registrations: registrations.map((r) => (r.state ? { country: r.country, state: r.state } : { country: r.country })), prices_include_tax: pricesIncludeTax } };
    const r = await v1<OrgSettings>(scope, "PATCH", `/organizations/${org.id}`, { body });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: done });
    onSaved(r.data);
  }
  function onAdd(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const country = String(f.get("tax_country") ?? "").trim().toUpperCase();
    const state = String(f.get("tax_state") ?? "").trim().toUpperCase() || null;
    const added = { country, state };
    void save([...regs, added], f.get("prices_include_tax") === "on", `Registered in ${place(added)}.`);
  }
  return (
    <section aria-labelledby="tax-h">
      <h2 id="tax-h">Tax registrations</h2>
      {regs.length === 0 ? (
        <p className="hint">No tax registrations: no tax is charged.</p>
      ) : (
        <ul className="registrations">
          {regs.map((r) => (
            <li key={place(r)}>
              {place(r)}{" "}
              {mayWrite && (
                <button type="button" className="link" aria-label={`Remove ${place(r)}`} onClick={() => void save(regs.filter((x) => place(x) !== place(r)), included, `Removed ${place(r)}.`)}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {mayWrite ? (
        <form onSubmit={onAdd} aria-label="Tax registration" className="stack">
          <Field label="Country (two letters, e.g. DE)" name="tax_country" required maxLength={2} pattern="[A-Za-z]{2}" autoComplete="off" />
          <Field label="State or province (US, CA: e.g. NY)" name="tax_state" optional maxLength={3} autoComplete="off" />
          <CheckboxField label="Prices include tax" name="prices_include_tax" defaultChecked={included} />
          <button type="submit">Add the registration</button>
        </form>
      ) : (
        <>
          <p className="hint">Prices {included ? "include" : "exclude"} tax.</p>
          <ReadOnly what="change the organization" />
        </>
      )}
      <Status tone={said?.tone}>{said?.text}</Status>
    </section>
  );
}
