// The product editor's other parts: who sees the product (visibility), a free trial on a subscription, its
// images (uploaded from the page), and the custom fields its checkout asks. Held beside the form's prices and
// sent with them (ProductEdit).
import { useState } from "react";
import "../catalog.css";
import { SelectField } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { uploadFile, type UploadedFile } from "../kit/upload.js";
import type { Product } from "../wire.js";
import type { CustomField } from "./CustomFields.js";

export interface Extras {
  visibility: string;
  trialInterval: string;
  trialCount: string;
  medias: UploadedFile[];
  fields: Array<{ id: string; name: string; required: boolean }>;
}

export type ProductMore = Product & {
  visibility?: string;
  trial_interval?: string | null;
  trial_interval_count?: number | null;
  medias?: UploadedFile[];
  attached_custom_fields?: Array<{ custom_field_id: string; custom_field: { name: string }; required: boolean }>;
};

export const extrasOf = (p: ProductMore | null): Extras => ({
  visibility: p?.visibility ?? "public",
  trialInterval: p?.trial_interval ?? "",
  trialCount: String(p?.trial_interval_count ?? 14),
  medias: p?.medias ?? [],
  fields: (p?.attached_custom_fields ?? []).map((a) => ({ id: a.custom_field_id, name: a.custom_field.name, required: a.required })),
});

export function extrasBody(x: Extras, recurring: boolean): Record<string, unknown> {
  return {
    visibility: x.visibility,
    ...(recurring ? { trial_interval: x.trialInterval || null, trial_interval_count: x.trialInterval ? Number(x.trialCount) || 1 : null } : {}),
    medias: x.medias.map((m) => m.id),
    attached_custom_fields: x.fields.map((f) => ({ custom_field_id: f.id, required: f.required })),
  };
}

function Media({ x, set }: { x: Extras; set: (x: Extras) => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<string | null>(null);
  const add = async (files: FileList | null) => {
    const added: UploadedFile[] = [];
    for (const file of Array.from(files ?? [])) {
      setSaid(`Uploading ${file.name}…`);
      const up = await uploadFile(scope, file, "product_media");
      if (typeof up === "string") return setSaid(up);
      added.push(up);
    }
    setSaid(added.length ? `Uploaded ${added.map((a) => a.name).join(", ")}.` : null);
    set({ ...x, medias: [...x.medias, ...added] });
  };
  return (
    <>
      {x.medias.length > 0 && (
        <ul className="media-list" aria-label="Images">
          {x.medias.map((m) => (
            <li key={m.id}>
              {m.public_url && <img src={m.public_url} alt="" width={64} height={64} />}
              <span>{m.name}</span>
              <button type="button" className="link danger" aria-label={`Remove ${m.name}`} onClick={() => set({ ...x, medias: x.medias.filter((o) => o.id !== m.id) })}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="field">
        <label htmlFor="product-images">Add images</label>
        <input id="product-images" type="file" accept="image/png,image/jpeg,image/gif,image/webp,image/svg+xml" multiple onChange={(e) => void add(e.target.files)} />
      </div>
      <p className="hint" role="status" aria-live="polite">
        {said}
      </p>
    </>
  );
}

function Fields({ x, set }: { x: Extras; set: (x: Extras) => void }) {
  const { scope } = useSeller();
  const all = useLoad(() => v1<ListPage<CustomField>>(scope, "GET", "/custom-fields/", { query: { limit: 100 } }), "custom-fields");
  const offered = (all.data?.items ?? []).filter((c) => !x.fields.some((f) => f.id === c.id));
  return (
    <>
      {x.fields.length === 0 && <p className="hint">The checkout asks no extra question.</p>}
      {x.fields.map((f) => (
        <div key={f.id} className="field checkbox">
          <input id={`cf-${f.id}`} type="checkbox" checked={f.required} onChange={(e) => set({ ...x, fields: x.fields.map((o) => (o.id === f.id ? { ...o, required: e.target.checked } : o)) })} />
          <label htmlFor={`cf-${f.id}`}>{f.name}: an answer is required</label>{" "}
          <button type="button" className="link danger" aria-label={`Remove ${f.name}`} onClick={() => set({ ...x, fields: x.fields.filter((o) => o.id !== f.id) })}>
            Remove
          </button>
        </div>
      ))}
      {offered.length > 0 && (
        <SelectField
          label="Ask a custom field"
          value=""
          placeholder="Choose a field"
          options={offered.map((c) => ({ value: c.id, label: c.name }))}
          onChange={(e) => {
            const c = offered.find((o) => o.id === e.target.value);
            if (c) set({ ...x, fields: [...x.fields, { id: c.id, name: c.name, required: false }] });
          }}
        />
      )}
    </>
  );
}

export function ProductExtras({ x, set, recurring }: { x: Extras; set: (x: Extras) => void; recurring: boolean }) {
  return (
    <>
      <section className="form-section" aria-labelledby="visibility-h">
        <h2 id="visibility-h">Visibility and trial</h2>
        <SelectField
          label="Who sees it"
          value={x.visibility === "public" ? "" : x.visibility}
          onChange={(e) => set({ ...x, visibility: e.target.value || "public" })}
          placeholder="Public: listed and sold"
          options={[
            { value: "private", label: "Private: sold only through links and the API" },
            { value: "draft", label: "Draft: not sold yet" },
          ]}
        />
        {recurring && (
          <div className="row-fields">
            <SelectField
              label="Free trial"
              value={x.trialInterval}
              onChange={(e) => set({ ...x, trialInterval: e.target.value })}
              placeholder="No trial"
              options={[
                { value: "day", label: "Days" },
                { value: "week", label: "Weeks" },
                { value: "month", label: "Months" },
              ]}
            />
            {x.trialInterval && (
              <div className="field">
                <label htmlFor="trial-count">Trial length</label>
                <input id="trial-count" type="number" min={1} max={1000} value={x.trialCount} onChange={(e) => set({ ...x, trialCount: e.target.value })} />
              </div>
            )}
          </div>
        )}
      </section>
      <section className="form-section" aria-labelledby="media-h">
        <h2 id="media-h">Images</h2>
        <Media x={x} set={set} />
      </section>
      <section className="form-section" aria-labelledby="fields-h">
        <h2 id="fields-h">Checkout questions</h2>
        <Fields x={x} set={set} />
      </section>
    </>
  );
}
