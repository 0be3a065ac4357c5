// The form that creates an organization (better-auth's route, with the session cookie); its slug is made from
// the name, as `till orgs create` makes it.
import { useState, type FormEvent } from "react";
import { createOrganization, slugify } from "../home-api.js";
import { Field, Status, type Tone } from "../ui.js";

export function CreateOrganization({ onCreated }: { onCreated: (slug: string) => void }) {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ tone: Tone; text: string } | undefined>(undefined);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const name = String(new FormData(form).get("name") ?? "").trim();
    const slug = slugify(name);
    if (!slug) return setStatus({ tone: "error", text: "Give the organization a name with letters or digits." });
    setBusy(true);
    setStatus({ tone: "info", text: "Creating the organization…" });
    const r = await createOrganization(name, slug);
    setBusy(false);
    if (!r.ok) return setStatus({ tone: "error", text: r.error.message });
    form.reset();
    setStatus({ tone: "success", text: `Created ${name} (${r.data.slug}).` });
    onCreated(r.data.slug);
  }

  return (
    <section aria-labelledby="create-org" className="create-org">
      <h2 id="create-org">Create an organization</h2>
      <form onSubmit={(e) => void onSubmit(e)} aria-label="Create an organization">
        <Field label="Organization name" name="name" required maxLength={100} hint="Its slug is made from the name." />
        <button type="submit" className="primary" disabled={busy}>
          Create organization
        </button>
      </form>
      <Status tone={status?.tone}>{status?.text}</Status>
    </section>
  );
}
