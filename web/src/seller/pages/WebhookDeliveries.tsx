// /webhooks/<id>: one endpoint — its facts, its signing secret (shown on request, reset after asking once more),
// its deliveries newest first with each one's request and response, an event sent again from a row's menu; and
// changing the endpoint (WebhookEdit) or deleting it after asking once more.
import { useState } from "react";
import { WEBHOOK_EVENT_TYPES } from "../../../../shared/webhook-events.js";
import { Status } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { DataTable, type DataColumn } from "../kit/DataTable.js";
import { Empty } from "../kit/Empty.js";
import { RowActions } from "../kit/RowActions.js";
import { Secret } from "../kit/Secret.js";
import { Viewer } from "../kit/Viewer.js";
import { Layout } from "../Layout.js";
import { Facts, Loading, Pager } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href, pageParam } from "../url.js";
import { deleteEndpoint, type Endpoint } from "./Webhooks.js";
import { EndpointForm } from "./WebhookEdit.js";

interface Delivery {
  id: string;
  created_at: string;
  succeeded: boolean;
  http_code: number | null;
  response: string | null;
  duration_ms?: number;
  attempt?: number;
  webhook_event: { id: string; type?: string; payload?: string | null };
}

const eventType = (d: Delivery) => d.webhook_event.type ?? "event";
const when = (iso: string) => iso.slice(0, 19).replace("T", " ");
const result = (d: Delivery) => `${d.succeeded ? "delivered" : "failed"}${d.http_code ? ` (HTTP ${d.http_code})` : ""}`;

/** A JSON body indented to read; anything else as it came. */
function pretty(text: string | null | undefined): string {
  if (!text) return "(empty)";
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

const COLUMNS: Array<DataColumn<Delivery>> = [
  { id: "when", label: "When", cell: (d) => when(d.created_at) },
  { id: "event", label: "Event", cell: eventType },
  { id: "result", label: "Result", cell: result },
];

function DeliveryViewer({ d, onClose }: { d: Delivery; onClose: () => void }) {
  return (
    <Viewer title={`${eventType(d)}, ${when(d.created_at)}`} onClose={onClose}>
      <Facts
        items={[
          ["Result", result(d)],
          ["Attempt", String(d.attempt ?? 1)],
          ["Took", d.duration_ms !== undefined ? `${d.duration_ms} ms` : "—"],
          ["Event id", <code key="id">{d.webhook_event.id}</code>],
        ]}
      />
      <h3>Request body</h3>
      <pre tabIndex={0} aria-label="Request body">{pretty(d.webhook_event.payload)}</pre>
      <h3>{d.http_code === null ? "Error" : "Response body"}</h3>
      <pre tabIndex={0} aria-label="Response body">{pretty(d.response)}</pre>
    </Viewer>
  );
}

function SigningSecret({ endpoint, onReset }: { endpoint: Endpoint; onReset: (e: Endpoint) => void }) {
  const { scope } = useSeller();
  const toast = useToast();
  const [shown, setShown] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  async function reset() {
    const r = await v1<Endpoint>(scope, "PATCH", `/webhooks/endpoints/${endpoint.id}/secret`);
    if (!r.ok) return setError(r.error.message);
    setError(undefined);
    setShown(true);
    toast("Made a new signing secret: put it in your app now.");
    onReset(r.data);
  }
  return (
    <section className="form-section" aria-labelledby="secret-h">
      <h2 id="secret-h">Signing secret</h2>
      {shown && endpoint.secret ? (
        <Secret label="Signing secret" value={endpoint.secret} note="Your app checks each delivery's signature with it." />
      ) : (
        <p className="hint">Your app checks each delivery&apos;s signature with it (Standard Webhooks).</p>
      )}
      <div className="actions">
        {!shown && (
          <button type="button" onClick={() => setShown(true)}>
            Show the signing secret
          </button>
        )}
        <Confirm
          trigger="Reset the secret…"
          title="Make a new signing secret?"
          body="The current secret stops working at once: deliveries are signed with the new one, which your app must then know."
          confirm="Yes, make a new secret"
          onConfirm={reset}
        />
      </div>
      <Status tone="error">{error}</Status>
    </section>
  );
}

export function WebhookDeliveries({ id }: { id: string }) {
  const { scope } = useSeller();
  const toast = useToast();
  const mayWrite = useMayWrite("webhooks");
  const page = pageParam();
  const endpoint = useLoad(() => v1<Endpoint>(scope, "GET", `/webhooks/endpoints/${id}`), id);
  const [saved, setSaved] = useState<Endpoint | null>(null);
  const ep = saved ?? endpoint.data;
  const list = useLoad(() => v1<ListPage<Delivery>>(scope, "GET", "/webhooks/deliveries", { query: { endpoint_id: id, page, limit: 20 } }), `${id}|${page}`);
  const [error, setError] = useState<string | undefined>(undefined);
  const [viewing, setViewing] = useState<Delivery | null>(null);
  async function redeliver(d: Delivery) {
    const r = await v1<unknown>(scope, "POST", `/webhooks/events/${d.webhook_event.id}/redeliver`);
    if (!r.ok) return setError(r.error.message);
    setError(undefined);
    toast(`Sent ${eventType(d)} again: the new delivery shows here once made.`);
    list.reload();
  }
  return (
    <Layout title="Webhook endpoint" back={{ href: href("/webhooks"), label: "Webhooks" }}>
      {ep && (
        <Facts
          items={[
            ["URL", ep.url],
            ["Format", ep.format],
            ["Status", ep.enabled ? "enabled" : "disabled"],
            ["Events", ep.events.length === WEBHOOK_EVENT_TYPES.length ? "all" : ep.events.join(", ")],
          ]}
        />
      )}
      <Loading loading={list.loading} error={list.error ?? endpoint.error} />
      <Status tone="error">{error}</Status>
      <section aria-labelledby="deliveries-h">
        <h2 id="deliveries-h">Deliveries</h2>
        {list.data && list.data.items.length === 0 && (
          <Empty title="Nothing delivered yet." command="till trigger order.paid">
            A delivery shows here each time an event it receives happens: make a sale in the sandbox, or send a test event from a terminal.
          </Empty>
        )}
        {list.data && list.data.items.length > 0 && (
          <>
            <DataTable
              caption="Deliveries"
              rows={list.data.items}
              columns={COLUMNS}
              actions={(d) => (
                <RowActions
                  name={`${eventType(d)} of ${when(d.created_at)}`}
                  items={[
                    { label: "Request and response", onSelect: () => setViewing(d) },
                    ...(mayWrite ? [{ label: "Redeliver", onSelect: () => void redeliver(d) }] : []),
                  ]}
                />
              )}
            />
            <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
          </>
        )}
      </section>
      {ep && mayWrite && <SigningSecret endpoint={ep} onReset={setSaved} />}
      {ep && mayWrite && (
        <section className="form-section" aria-labelledby="edit-endpoint-h">
          <h2 id="edit-endpoint-h">Change it</h2>
          <EndpointForm endpoint={ep} onSaved={setSaved} />
        </section>
      )}
      {ep && mayWrite && (
        <section className="form-section" aria-labelledby="delete-h">
          <h2 id="delete-h">Delete</h2>
          <p className="hint">Nothing more is sent to it; its deliveries so far are kept.</p>
          <div>
            <Confirm
              trigger="Delete the endpoint"
              title={`Delete the endpoint ${ep.url}?`}
              body="Nothing more is sent to it, and its pending deliveries stop. Its deliveries so far are kept."
              confirm="Yes, delete the endpoint"
              cancel="Keep it"
              onConfirm={async () => {
                const failed = await deleteEndpoint(scope, ep);
                if (failed) return setError(failed);
                window.location.assign(href("/webhooks", { deleted: 1 }));
              }}
            />
          </div>
        </section>
      )}
      {viewing && <DeliveryViewer d={viewing} onClose={() => setViewing(null)} />}
    </Layout>
  );
}
