// A custom field's form, new or changed: a question a checkout asks (its type — text, number, date, checkbox or a
// choice among options — its name and slug, what the buyer reads), as POST/PATCH /v1/custom-fields/ take it. The
// type is fixed once made (answers already stored keep their shape). Saving goes back to the list.
import { useState, type FormEvent } from "react";
import { CheckboxField, Field, SelectField, Status, TextAreaField } from "../../ui.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { Loading, ReadOnly } from "../parts.js";
import { href } from "../url.js";
import { TYPES, type CustomField } from "./CustomFields.js";

const text = (f: FormData, name: string) => String(f.get(name) ?? "").trim();
const num = (f: FormData, name: string) => (text(f, name) === "" ? undefined : Number(text(f, name)));
const slugOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 100);

/** "value = label" lines (or just "label") as the API's options. */
function optionsOf(lines: string): Array<{ value: string; label: string }> {
  return lines
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [value = "", label] = l.split("=").map((s) => s.trim());
      return { value: label ? value : slugOf(value) || value, label: label ?? value };
    });
}

function propertiesOf(type: string, f: FormData): Record<string, unknown> {
  const p: Record<string, unknown> = {};
  for (const k of ["form_label", "form_help_text", "form_placeholder"]) if (text(f, k)) p[k] = text(f, k);
  if (type === "text") Object.assign(p, { textarea: f.get("textarea") === "on", min_length: num(f, "min"), max_length: num(f, "max") });
  if (type === "number") Object.assign(p, { ge: num(f, "min"), le: num(f, "max") });
  if (type === "select") p.options = optionsOf(text(f, "options"));
  return p;
}

function Bounds({ type, field }: { type: string; field: CustomField | null }) {
  const props = field?.properties ?? {};
  const shown = (k: string) => (typeof props[k] === "number" ? String(props[k]) : "");
  if (type === "text")
    return (
      <>
        <CheckboxField label="A long answer (several lines)" name="textarea" defaultChecked={props.textarea === true} />
        <div className="row-fields">
          <Field label="Fewest characters" name="min" type="number" min={0} optional defaultValue={shown("min_length")} />
          <Field label="Most characters" name="max" type="number" min={0} optional defaultValue={shown("max_length")} />
        </div>
      </>
    );
  if (type === "number")
    return (
      <div className="row-fields">
        <Field label="Smallest" name="min" type="number" optional defaultValue={shown("ge")} />
        <Field label="Largest" name="max" type="number" optional defaultValue={shown("le")} />
      </div>
    );
  if (type === "select") {
    const options = Array.isArray(props.options) ? (props.options as Array<{ value: string; label: string }>) : [];
    return (
      <TextAreaField
        label="Options"
        name="options"
        required
        rows={4}
        defaultValue={options.map((o) => `${o.value} = ${o.label}`).join("\n")}
        hint="One a line: value = label (or only the label)."
      />
    );
  }
  return null;
}

function CustomFieldForm({ field }: { field: CustomField | null }) {
  const { scope } = useSeller();
  const [type, setType] = useState(field?.type ?? "text");
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const name = text(f, "name");
    const body = { type, name, slug: text(f, "slug") || slugOf(name), properties: propertiesOf(type, f) };
    setBusy(true);
    const r = field
      ? await v1<CustomField>(scope, "PATCH", `/custom-fields/${field.id}`, { body })
      : await v1<CustomField>(scope, "POST", "/custom-fields/", { body });
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    window.location.assign(href("/custom-fields", field ? { saved: 1 } : { created: 1 }));
  }
  const props = field?.properties ?? {};
  const said = (k: string) => (typeof props[k] === "string" ? (props[k] as string) : "");
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label={field ? "Edit the custom field" : "New custom field"} className="form-page">
      <section className="form-section" aria-labelledby="cf-about-h">
        <h2 id="cf-about-h">The question</h2>
        {field ? (
          <p>
            Type: <strong>{field.type}</strong> <span className="hint">(fixed once made)</span>
          </p>
        ) : (
          <SelectField label="Type" name="type" value={type} onChange={(e) => setType(e.target.value || "text")} placeholder="Choose a type" options={TYPES} />
        )}
        <Field label="Name" name="name" required maxLength={255} defaultValue={field?.name ?? ""} hint="Yours, in lists and exports." />
        <Field
          label="Slug"
          name="slug"
          optional
          maxLength={100}
          pattern="[A-Za-z0-9_\-]+"
          defaultValue={field?.slug ?? ""}
          hint="The key its answers are stored under; made from the name when empty."
        />
      </section>
      <section className="form-section" aria-labelledby="cf-form-h">
        <h2 id="cf-form-h">What the buyer reads</h2>
        <Field label="Label" name="form_label" optional maxLength={1000} defaultValue={said("form_label")} />
        <Field label="Help text" name="form_help_text" optional maxLength={1000} defaultValue={said("form_help_text")} />
        {type !== "checkbox" && <Field label="Placeholder" name="form_placeholder" optional maxLength={1000} defaultValue={said("form_placeholder")} />}
        <Bounds type={type} field={field} />
      </section>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {field ? "Save changes" : "Create custom field"}
        </button>
        <a href={href("/custom-fields")}>Cancel</a>
      </div>
      <Status tone={error ? "error" : "info"}>{error ?? (busy ? "Saving…" : null)}</Status>
    </form>
  );
}

export function CustomFieldEdit({ id }: { id: string | null }) {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("custom_fields");
  const loaded = useLoad(() => (id ? v1<CustomField>(scope, "GET", `/custom-fields/${id}`) : Promise.resolve({ ok: true as const, data: null })), id ?? "new");
  const back = { href: href("/custom-fields"), label: "Custom fields" };
  if (id && !loaded.data) {
    return (
      <Layout title="Custom field" back={back}>
        <Loading loading={loaded.loading} error={loaded.error} />
      </Layout>
    );
  }
  return (
    <Layout title={loaded.data ? loaded.data.name : "New custom field"} back={back}>
      {mayWrite ? <CustomFieldForm field={loaded.data ?? null} /> : <ReadOnly what="change custom fields" />}
    </Layout>
  );
}
