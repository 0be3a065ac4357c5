// /webhooks: the side's webhook endpoints, a page at a time; each row opens its page (deliveries, changes) or
// deletes it after asking once more. The main action adds one (/webhooks/new, WebhookEdit.tsx). An empty list says
// what an endpoint is for, on the page and from a terminal.
import { useState } from "react";
import { WEBHOOK_EVENT_TYPES } from "../../../../shared/webhook-events.js";
import { Status } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { DataTable, type DataColumn } from "../kit/DataTable.js";
import { Empty } from "../kit/Empty.js";
import { RowActions, type RowAction } from "../kit/RowActions.js";
import { Layout } from "../Layout.js";
import { day, Loading, Pager } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href, pageParam } from "../url.js";

export interface Endpoint {
  id: string;
  url: string;
  format: string;
  events: string[];
  enabled: boolean;
  created_at: string;
  secret?: string;
}

const COLUMNS: Array<DataColumn<Endpoint>> = [
  { id: "url", label: "URL", cell: (w) => <a href={href(`/webhooks/${w.id}`)}>{w.url}</a> },
  { id: "events", label: "Events", cell: (w) => (w.events.length === WEBHOOK_EVENT_TYPES.length ? "all" : String(w.events.length)), numeric: true },
  { id: "enabled", label: "Status", cell: (w) => (w.enabled ? "enabled" : "disabled") },
  { id: "added", label: "Added", cell: (w) => day(w.created_at) },
];

/** Deletes an endpoint; its deliveries so far stay in the log. */
export async function deleteEndpoint(scope: ReturnType<typeof useSeller>["scope"], e: Endpoint): Promise<string | null> {
  const r = await v1<unknown>(scope, "DELETE", `/webhooks/endpoints/${e.id}`);
  return r.ok ? null : r.error.message;
}

export function Webhooks() {
  const { scope, mode } = useSeller();
  const toast = useToast();
  const mayWrite = useMayWrite("webhooks");
  const page = pageParam();
  const list = useLoad(() => v1<ListPage<Endpoint>>(scope, "GET", "/webhooks/endpoints", { query: { page, limit: 20 } }), String(page));
  const [deleting, setDeleting] = useState<Endpoint | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const add = mayWrite ? (
    <a className="button primary" href={href("/webhooks/new")}>
      Add endpoint
    </a>
  ) : undefined;
  const actions = (w: Endpoint): RowAction[] => [
    { label: "Open", href: href(`/webhooks/${w.id}`) },
    ...(mayWrite ? [{ label: "Delete…", danger: true, onSelect: () => setDeleting(w) }] : []),
  ];
  return (
    <Layout title="Webhooks" action={add}>
      <Loading loading={list.loading} error={list.error} />
      <Status tone="error">{error}</Status>
      {list.data && list.data.items.length === 0 && (
        <Empty
          title={`No webhook endpoints yet${mode === "sandbox" ? " in the sandbox" : ""}.`}
          command="till webhooks endpoints create https://example.com/hooks --all-events"
          action={
            mayWrite && (
              <a className="button" href={href("/webhooks/new")}>
                Add your first endpoint
              </a>
            )
          }
        >
          An endpoint is your app&apos;s address: till posts each event there (an order paid, a subscription canceled), signed, and retries
          until your app answers.
        </Empty>
      )}
      {list.data && list.data.items.length > 0 && (
        <>
          <DataTable caption="Webhook endpoints" rows={list.data.items} columns={COLUMNS} actions={(w) => <RowActions name={w.url} items={actions(w)} />} />
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
      {deleting && (
        <Confirm
          trigger={null}
          open
          onOpenChange={(o) => !o && setDeleting(null)}
          title={`Delete the endpoint ${deleting.url}?`}
          body="Nothing more is sent to it, and its pending deliveries stop. Its deliveries so far are kept."
          confirm="Yes, delete the endpoint"
          cancel="Keep it"
          onConfirm={async () => {
            const failed = await deleteEndpoint(scope, deleting);
            setError(failed ?? undefined);
            if (!failed) toast(`Deleted the endpoint ${deleting.url}.`);
            list.reload();
          }}
        />
      )}
    </Layout>
  );
}
