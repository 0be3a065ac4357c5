// A benefit's form, new or changed, for every type the API has: a note (custom), license keys (prefix, expiry,
// activations), a GitHub repository's access, a Discord role, meter credits, a feature flag, and files to download
// (uploaded from the page). The type is fixed once made. The caller attaches a new benefit to its product.
import { useState, type FormEvent } from "react";
import "../catalog.css";
import { CheckboxField, Field, SelectField, Status, TextAreaField } from "../../ui.js";
import { formErrors, v1, type ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { uploadFile } from "../kit/upload.js";
import type { Benefit } from "../wire.js";
import { benefitType } from "../words.js";
import type { Meter } from "./meter-parts.js";

export type BenefitFull = Benefit & { properties?: Record<string, unknown> };

export const BENEFIT_TYPES = [
  { value: "custom", label: "Custom (a note for the buyer)" },
  { value: "license_keys", label: "License keys" },
  { value: "downloadables", label: "File downloads" },
  { value: "github_repository", label: "GitHub repository access" },
  { value: "discord", label: "Discord role" },
  { value: "meter_credit", label: "Meter credits" },
  { value: "feature_flag", label: "Feature flag" },
];

// the body's paths a 422 names, and the form's fields that show its message
const FIELD_NAMES: Readonly<Record<string, string>> = {
  "description": "description",
  "properties.note": "note",
  "properties.prefix": "prefix",
  "properties.expires": "ttl",
  "properties.activations": "activations",
  "properties.repository_owner": "owner",
  "properties.repository_name": "repo",
  "properties.permission": "permission",
  "properties.guild_token": "guild_token",
  "properties.role_id": "role_id",
  "properties.meter_id": "meter_id",
  "properties.units": "units",
};
const fieldNamed = (path: string) => Object.entries(FIELD_NAMES).find(([p]) => path === p || path.startsWith(`${p}.`))?.[1];

const text = (f: FormData, name: string) => String(f.get(name) ?? "").trim();
const int = (f: FormData, name: string) => (text(f, name) ? Number(text(f, name)) : null);

/** The benefit's properties from the form (uploading its files first), or a sentence saying what is wrong. */
async function propertiesOf(
  type: string,
  f: FormData,
  scope: ReturnType<typeof useSeller>["scope"],
  before: Record<string, unknown>,
): Promise<Record<string, unknown> | string> {
  switch (type) {
    case "custom":
      return { note: text(f, "note") || null };
    case "license_keys": {
      const ttl = int(f, "ttl");
      const limit = int(f, "activations");
      return {
        prefix: text(f, "prefix") || null,
        expires: ttl ? { ttl, timeframe: text(f, "timeframe") || "month" } : null,
        activations: limit ? { limit, enable_customer_admin: f.get("customer_admin") === "on" } : null,
      };
    }
    case "github_repository":
      return { repository_owner: text(f, "owner"), repository_name: text(f, "repo"), permission: text(f, "permission") || "pull" };
    case "discord":
      return { guild_token: text(f, "guild_token"), role_id: text(f, "role_id"), kick_member: f.get("kick_member") === "on" };
    case "meter_credit":
      return { meter_id: text(f, "meter_id"), units: int(f, "units") ?? 0, rollover: f.get("rollover") === "on" };
    case "downloadables": {
      const kept = Array.isArray(before.files) ? (before.files as string[]) : [];
      const ids = [...kept];
      for (const file of f.getAll("files")) {
        if (!(file instanceof File) || file.size === 0) continue;
        const up = await uploadFile(scope, file, "downloadable");
        if (typeof up === "string") return up;
        ids.push(up.id);
      }
      return ids.length ? { files: ids } : "Choose at least one file to upload.";
    }
    default:
      return {};
  }
}

/**
 * A Discord role is given by the seller's own bot: without it connected, the benefit is made but its grants wait;
 * with it, the server checks the bot can give the role when the benefit is saved.
 */
function DiscordBot() {
  const { scope } = useSeller();
  const loaded = useLoad(() => v1<Array<{ platform: string }>>(scope, "GET", "/benefit-integrations/"), "integrations");
  if (!loaded.data) return null;
  return loaded.data.some((i) => i.platform === "discord") ? (
    <p className="hint">Your Discord bot is connected: saving checks that it can give the role.</p>
  ) : (
    <p className="hint">
      No Discord bot is connected yet: grants wait until you connect it with <code>till benefits discord connect</code>.
    </p>
  );
}

function TypeFields({ type, props, errors }: { type: string; props: Record<string, unknown>; errors: Record<string, string> }) {
  const { scope } = useSeller();
  const meters = useLoad(
    () =>
      type === "meter_credit"
        ? v1<ListPage<Meter>>(scope, "GET", "/meters/", { query: { limit: 100, is_archived: false } })
        : Promise.resolve({ ok: true as const, data: null }),
    type,
  );
  const s = (k: string) => (typeof props[k] === "string" || typeof props[k] === "number" ? String(props[k]) : "");
  const nested = (k: string, j: string) => {
    const o = props[k] as Record<string, unknown> | null | undefined;
    return o && (typeof o[j] === "string" || typeof o[j] === "number") ? String(o[j]) : "";
  };
  if (type === "custom")
    return (
      <TextAreaField
        label="Note"
        name="note" error={errors.note}
        optional
        rows={3}
        defaultValue={s("note")}
        hint="What the buyer reads once they have it (instructions, a link)."
      />
    );
  if (type === "license_keys")
    return (
      <>
        <Field label="Key prefix" name="prefix" error={errors.prefix} optional maxLength={32} defaultValue={s("prefix")} placeholder="PRO" />
        <div className="row-fields">
          <Field label="Expires after" name="ttl" error={errors.ttl} type="number" min={1} optional defaultValue={nested("expires", "ttl")} />
          <SelectField
            label="Expiry unit"
            name="timeframe"
            defaultValue={nested("expires", "timeframe") || "month"}
            placeholder="Month"
            options={[
              { value: "day", label: "Days" },
              { value: "year", label: "Years" },
            ]}
          />
        </div>
        <Field label="Activations per key" name="activations" error={errors.activations} type="number" min={1} max={50} optional defaultValue={nested("activations", "limit")} />
        <CheckboxField label="Buyers may deactivate their own devices" name="customer_admin" />
      </>
    );
  if (type === "github_repository")
    return (
      <div className="row-fields">
        <Field label="Repository owner" name="owner" error={errors.owner} required defaultValue={s("repository_owner")} placeholder="acme" />
        <Field label="Repository name" name="repo" error={errors.repo} required defaultValue={s("repository_name")} placeholder="sdk" />
        <SelectField
          label="Permission"
          name="permission" error={errors.permission}
          defaultValue={s("permission") || "pull"}
          placeholder="Read (pull)"
          options={[
            { value: "triage", label: "Triage" },
            { value: "push", label: "Write (push)" },
            { value: "maintain", label: "Maintain" },
            { value: "admin", label: "Admin" },
          ]}
        />
      </div>
    );
  if (type === "discord")
    return (
      <>
        <DiscordBot />
        <Field label="Server (guild) id" name="guild_token" error={errors.guild_token} required defaultValue={s("guild_token")} hint="Your Discord server's id, where your bot is." />
        <Field label="Role id" name="role_id" error={errors.role_id} required defaultValue={s("role_id")} hint="The role buyers are given: your bot's own role must be above it." />
        <CheckboxField label="Remove the member when the benefit ends" name="kick_member" defaultChecked={props.kick_member === true} />
      </>
    );
  if (type === "meter_credit")
    return (
      <>
        <SelectField
          label="Meter"
          name="meter_id" error={errors.meter_id}
          required
          defaultValue={s("meter_id")}
          placeholder="Choose a meter"
          options={(meters.data?.items ?? []).map((m) => ({ value: m.id, label: m.name }))}
        />
        <Field label="Units credited each period" name="units" error={errors.units} type="number" min={1} required defaultValue={s("units")} />
        <CheckboxField label="Unused units roll over" name="rollover" defaultChecked={props.rollover === true} />
      </>
    );
  if (type === "downloadables") {
    const kept = Array.isArray(props.files) ? props.files.length : 0;
    return (
      <div className="field">
        <label htmlFor="benefit-files">Files to upload{kept ? ` (it has ${kept}; these are added)` : ""}</label>
        <input id="benefit-files" name="files" type="file" multiple required={kept === 0} />
      </div>
    );
  }
  return <p className="hint">A feature flag has no settings: your app asks the customer&apos;s state whether it is granted.</p>;
}

export function BenefitForm({ benefit, onDone, onCancel }: { benefit: BenefitFull | null; onDone: (b: BenefitFull) => void; onCancel: () => void }) {
  const { scope } = useSeller();
  const [type, setType] = useState(benefit?.type ?? "custom");
  const [error, setError] = useState<string | undefined>(undefined);
  const [at, setAt] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    e.stopPropagation();
    const f = new FormData(e.currentTarget);
    setBusy(true);
    setAt({});
    const properties = await propertiesOf(type, f, scope, benefit?.properties ?? {});
    if (typeof properties === "string") {
      setBusy(false);
      return setError(properties);
    }
    const body = { type, description: text(f, "description"), properties };
    const r = benefit
      ? await v1<BenefitFull>(scope, "PATCH", `/benefits/${benefit.id}`, { body })
      : await v1<BenefitFull>(scope, "POST", "/benefits/", { body });
    setBusy(false);
    if (!r.ok) {
      const said = formErrors(r.error, fieldNamed);
      setAt(said.at);
      return setError(said.rest);
    }
    onDone(r.data);
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label={benefit ? `Edit ${benefit.description}` : "New benefit"} className="benefit-card">
      {benefit ? (
        <p>
          Type: <strong>{benefitType(benefit.type)}</strong>
        </p>
      ) : (
        <SelectField
          label="Type"
          name="type"
          value={type}
          onChange={(e) => setType(e.target.value || "custom")}
          placeholder="Choose a type"
          options={BENEFIT_TYPES}
        />
      )}
      <Field
        label="Description"
        name="description"
        required
        minLength={3}
        maxLength={42}
        defaultValue={benefit?.description ?? ""}
        hint="What the buyer sees, 3 to 42 characters."
        error={at.description}
      />
      <TypeFields key={type} type={type} props={benefit?.properties ?? {}} errors={at} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {benefit ? "Save the benefit" : "Create and attach"}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <Status tone={error ? "error" : "info"}>{error ?? (busy ? "Saving…" : null)}</Status>
    </form>
  );
}
