// /webhooks: the side's webhook endpoints and a form to add one (every event, or the ones ticked); each opens its
// page (WebhookDeliveries): its deliveries, changing it, deleting it.
import { useState, type FormEvent } from "react";
import { WEBHOOK_EVENT_TYPES } from "../../../../shared/webhook-events.js";
import { Field, Status, type Tone } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { day, Loading, Pager, Table } from "../parts.js";
import { href, pageParam } from "../url.js";
import { EventBoxes } from "./WebhookEdit.js";

export interface Endpoint {
  id: string;
  url: string;
  format: string;
  events: string[];
  enabled: boolean;
  created_at: string;
  secret?: string;
}

function CreateEndpoint({ onDone }: { onDone: () => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const ticked = f.getAll("event").map(String);
    const body = { url: String(f.get("url") ?? "").trim(), format: "raw", events: ticked.length ? ticked : [...WEBHOOK_EVENT_TYPES] };
    const r = await v1<Endpoint>(scope, "POST", "/webhooks/endpoints", { body });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: `Added. Its signing secret: ${r.data.secret ?? "(shown to those who may manage endpoints)"}` });
    onDone();
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label="New webhook endpoint" className="stack">
      <Field label="URL" name="url" type="url" required placeholder="https://example.com/webhooks/till" />
      <EventBoxes chosen={[]} />
      <button type="submit" className="primary">
        Add the endpoint
      </button>
      <Status tone={said?.tone}>{said?.text}</Status>
    </form>
  );
}

export function Webhooks() {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("webhooks");
  const page = pageParam();
  const list = useLoad(() => v1<ListPage<Endpoint>>(scope, "GET", "/webhooks/endpoints", { query: { page, limit: 20 } }), String(page));
  return (
    <Layout title="Webhooks">
      <Loading loading={list.loading} error={list.error} />
      {list.data && (
        <>
          <Table
            caption="Webhook endpoints"
            rows={list.data.items}
            empty="No webhook endpoints yet."
            columns={[
              { label: "URL", cell: (w) => <a href={href(`/webhooks/${w.id}`)}>{w.url}</a> },
              { label: "Events", cell: (w) => (w.events.length === WEBHOOK_EVENT_TYPES.length ? "all" : String(w.events.length)), numeric: true },
              { label: "Enabled", cell: (w) => (w.enabled ? "yes" : "no") },
              { label: "Added", cell: (w) => day(w.created_at) },
            ]}
          />
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
      {mayWrite && (
        <section aria-labelledby="new-endpoint-h">
          <h2 id="new-endpoint-h">New endpoint</h2>
          <CreateEndpoint onDone={list.reload} />
        </section>
      )}
    </Layout>
  );
}
