// A webhook endpoint changed from its page: its URL, the events it receives, whether it is enabled (PATCH), or
// deleted (its pending deliveries stop).
import { useState, type FormEvent } from "react";
import { WEBHOOK_EVENT_TYPES } from "../../../../shared/webhook-events.js";
import { CheckboxField, Field, Status, type Tone } from "../../ui.js";
import { v1 } from "../api.js";
import { useSeller } from "../context.js";
import { DeleteButton } from "./DeleteButton.js";
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

export function EditEndpoint({ endpoint, onSaved }: { endpoint: Endpoint; onSaved: (e: Endpoint) => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const ticked = f.getAll("event").map(String);
    const body = { url: String(f.get("url") ?? "").trim(), events: ticked.length ? ticked : [...WEBHOOK_EVENT_TYPES], enabled: f.get("enabled") === "on" };
    const r = await v1<Endpoint>(scope, "PATCH", `/webhooks/endpoints/${endpoint.id}`, { body });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: "Saved the endpoint." });
    onSaved(r.data);
  }
  return (
    <>
      <section aria-labelledby="edit-endpoint-h">
        <h2 id="edit-endpoint-h">Change it</h2>
        <form onSubmit={(e) => void onSubmit(e)} aria-label="Edit the endpoint" className="stack">
          <Field label="URL" name="url" type="url" required defaultValue={endpoint.url} />
          <EventBoxes chosen={endpoint.events} />
          <CheckboxField label="Enabled (deliveries are sent)" name="enabled" defaultChecked={endpoint.enabled} />
          <button type="submit" className="primary">
            Save the endpoint
          </button>
          <Status tone={said?.tone}>{said?.text}</Status>
        </form>
      </section>
      <DeleteButton path={`/webhooks/endpoints/${endpoint.id}`} what="the endpoint" hint="Nothing more is sent to it; its deliveries so far are kept." back="/webhooks" />
    </>
  );
}
