// A webhook endpoint's form: its URL, the events it receives (all when none is ticked) and, once made, whether it is
// enabled. /webhooks/new makes one (POST) and shows its signing secret once, with a Copy button; the endpoint's
// page changes it (PATCH). Saving is a toast; the API's refusal stays beside the button.
import { useState, type FormEvent } from "react";
import { WEBHOOK_EVENT_TYPES } from "../../../../shared/webhook-events.js";
import { CheckboxField, Field, Status } from "../../ui.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { Secret } from "../kit/Secret.js";
import { Layout } from "../Layout.js";
import { ReadOnly } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href } from "../url.js";
import type { Endpoint } from "./Webhooks.js";

/** The event boxes, ticked as `chosen` says (none ticked means every event). */
export function EventBoxes({ chosen }: { chosen: string[] }) {
  const all = chosen.length === WEBHOOK_EVENT_TYPES.length;
  return (
    <details>
      <summary>Events (all when none is ticked)</summary>
      <fieldset>
        <legend className="visually-hidden">Events</legend>
        {WEBHOOK_EVENT_TYPES.map((t) => (
          <div className="field checkbox" key={t}>
            <input id={`event-${t}`} type="checkbox" name="event" value={t} defaultChecked={!all && chosen.includes(t)} />
            <label htmlFor={`event-${t}`}>{t}</label>
          </div>
        ))}
      </fieldset>
    </details>
  );
}

/** The form's values as the API's body: the URL, the ticked events (every one when none is), and `enabled`. */
function bodyOf(form: HTMLFormElement, editing: boolean): Record<string, unknown> {
  const f = new FormData(form);
  const ticked = f.getAll("event").map(String);
  const body: Record<string, unknown> = { url: String(f.get("url") ?? "").trim(), events: ticked.length ? ticked : [...WEBHOOK_EVENT_TYPES] };
  if (editing) body.enabled = f.get("enabled") === "on";
  else body.format = "raw";
  return body;
}

export function EndpointForm({ endpoint, onSaved }: { endpoint: Endpoint | null; onSaved: (e: Endpoint) => void }) {
  const { scope } = useSeller();
  const toast = useToast();
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setBusy(true);
    const body = bodyOf(e.currentTarget, endpoint !== null);
    const r = endpoint
      ? await v1<Endpoint>(scope, "PATCH", `/webhooks/endpoints/${endpoint.id}`, { body })
      : await v1<Endpoint>(scope, "POST", "/webhooks/endpoints", { body });
    setBusy(false);
    if (!r.ok) return setError(r.error.fields?.map((x) => x.message).join("; ") || r.error.message);
    setError(undefined);
    toast(endpoint ? "Saved the endpoint." : `Added the endpoint: events now go to ${r.data.url}.`);
    onSaved(r.data);
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label={endpoint ? "Edit the endpoint" : "New webhook endpoint"} className="stack">
      <Field
        label="URL" name="url" type="url" required defaultValue={endpoint?.url} placeholder="https://example.com/webhooks/till"
        hint="Your app's address that receives the events, signed with the endpoint's secret (Standard Webhooks)."
      />
      <EventBoxes chosen={endpoint?.events ?? []} />
      {endpoint && <CheckboxField label="Enabled (deliveries are sent)" name="enabled" defaultChecked={endpoint.enabled} />}
      <button type="submit" className="primary" disabled={busy}>
        {endpoint ? "Save the endpoint" : "Add the endpoint"}
      </button>
      <Status tone={error ? "error" : "info"}>{error ?? (busy ? "Saving…" : null)}</Status>
    </form>
  );
}

/** /webhooks/new: the form, then the new endpoint's signing secret, shown this once. */
export function WebhookNew() {
  const mayWrite = useMayWrite("webhooks");
  const [made, setMade] = useState<Endpoint | null>(null);
  return (
    <Layout title="New webhook endpoint" back={{ href: href("/webhooks"), label: "Webhooks" }}>
      {!mayWrite && <ReadOnly what="add webhook endpoints" />}
      {mayWrite && !made && <EndpointForm endpoint={null} onSaved={setMade} />}
      {made && (
        <section className="form-section" aria-labelledby="made-h">
          <h2 id="made-h">Added {made.url}</h2>
          <Secret
            label="Signing secret"
            value={made.secret ?? ""}
            note="Put it in your app's settings now: your app checks each delivery's signature with it."
          />
          <p>
            <a className="button primary" href={href(`/webhooks/${made.id}`)}>
              Open the endpoint
            </a>{" "}
            <a href={href("/webhooks")}>Back to the endpoints</a>
          </p>
        </section>
      )}
    </Layout>
  );
}
