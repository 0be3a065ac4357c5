// /webhooks/<id>: one endpoint's deliveries, newest first, with their HTTP status, and redelivering an event;
// changing the endpoint (URL, events, enabled) or deleting it (WebhookEdit).
import { useState } from "react";
import { Status, type Tone } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { Facts, Loading, Pager, Table } from "../parts.js";
import { href, pageParam } from "../url.js";
import type { Endpoint } from "./Webhooks.js";
import { EditEndpoint } from "./WebhookEdit.js";
import { WEBHOOK_EVENT_TYPES } from "../../../../shared/webhook-events.js";

interface Delivery {
  id: string;
  created_at: string;
  succeeded: boolean;
  http_code: number | null;
  webhook_event: { id: string; type?: string };
}

const eventType = (d: Delivery) => d.webhook_event.type ?? "event";

export function WebhookDeliveries({ id }: { id: string }) {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("webhooks");
  const page = pageParam();
  const endpoint = useLoad(() => v1<Endpoint>(scope, "GET", `/webhooks/endpoints/${id}`), id);
  const [saved, setSaved] = useState<Endpoint | null>(null);
  const ep = saved ?? endpoint.data;
  const list = useLoad(() => v1<ListPage<Delivery>>(scope, "GET", "/webhooks/deliveries", { query: { endpoint_id: id, page, limit: 20 } }), `${id}|${page}`);
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  async function redeliver(eventId: string) {
    const r = await v1<unknown>(scope, "POST", `/webhooks/events/${eventId}/redeliver`);
    setSaid(r.ok ? { tone: "success", text: "Sent again: the new delivery shows here once made." } : { tone: "error", text: r.error.message });
    if (r.ok) setTimeout(list.reload, 1500);
  }
  return (
    <Layout title="Webhook endpoint">
      <p>
        <a href={href("/webhooks")}>All endpoints</a>
      </p>
      {ep && (
        <Facts
          items={[
            ["URL", ep.url], ["Format", ep.format], ["Enabled", ep.enabled ? "yes" : "no"],
            ["Events", ep.events.length === WEBHOOK_EVENT_TYPES.length ? "all" : ep.events.join(", ")],
          ]}
        />
      )}
      <Loading loading={list.loading} error={list.error ?? endpoint.error} />
      <Status tone={said?.tone}>{said?.text}</Status>
      {list.data && (
        <>
          <Table
            caption="Deliveries"
            rows={list.data.items}
            empty="Nothing delivered yet."
            columns={[
              { label: "When", cell: (d) => d.created_at.slice(0, 19).replace("T", " ") },
              { label: "Event", cell: eventType },
              { label: "Result", cell: (d) => `${d.succeeded ? "delivered" : "failed"}${d.http_code ? ` (HTTP ${d.http_code})` : ""}` },
              ...(mayWrite
                ? [{
                    label: "Again",
                    cell: (d: Delivery) => (
                      <button type="button" className="link" aria-label={`Redeliver ${eventType(d)} of ${d.created_at}`} onClick={() => void redeliver(d.webhook_event.id)}>
                        Redeliver
                      </button>
                    ),
                  }]
                : []),
            ]}
          />
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
      {ep && mayWrite && <EditEndpoint endpoint={ep} onSaved={setSaved} />}
    </Layout>
  );
}
