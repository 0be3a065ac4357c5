// The orders section's other two views: the refunds (newest first, the order each is of) and the disputes a
// processor opened on paid orders (a dispute still open may be accepted: the seller concedes and loses the money,
// asked once more). Each empty view says where its rows come from.
import { useState } from "react";
import { Status } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { DataTable, type DataColumn } from "../kit/DataTable.js";
import { Empty } from "../kit/Empty.js";
import { RowActions, type RowAction } from "../kit/RowActions.js";
import { day, Loading, money, Pager } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href, pageParam, params } from "../url.js";
import { disputeReason, disputeStatus, refundReason, refundStatus } from "../words.js";

const LIMIT = 20;

export interface Refund {
  id: string;
  created_at: string;
  status: string;
  reason: string;
  amount: number;
  tax_amount: number;
  currency: string;
  order_id: string;
  revoke_benefits: boolean;
}

export interface Dispute {
  id: string;
  created_at: string;
  status: string;
  closed: boolean;
  amount: number;
  currency: string;
  reason: string | null;
  evidence_due_by: string | null;
  order_id: string;
}

export const REFUND_COLUMNS: Array<DataColumn<Refund>> = [
  { id: "date", sortKey: "created_at", label: "Date", cell: (r) => day(r.created_at) },
  { id: "order", label: "Order", cell: (r) => <a href={href(`/orders/${r.order_id}`)}>Open the order</a> },
  { id: "reason", label: "Reason", cell: (r) => refundReason(r.reason) },
  { id: "status", label: "Status", cell: (r) => refundStatus(r.status) },
  { id: "amount", sortKey: "amount", label: "Amount", cell: (r) => money(r.amount, r.currency), numeric: true },
];

export const DISPUTE_COLUMNS: Array<DataColumn<Dispute>> = [
  { id: "date", sortKey: "created_at", label: "Opened", cell: (d) => day(d.created_at) },
  { id: "order", label: "Order", cell: (d) => <a href={href(`/orders/${d.order_id}`)}>Open the order</a> },
  { id: "status", label: "Status", cell: (d) => disputeStatus(d.status) },
  { id: "reason", label: "Reason", cell: (d) => disputeReason(d.reason) },
  // a closed dispute takes no more evidence
  { id: "due", label: "Evidence due", cell: (d) => (d.closed ? "—" : day(d.evidence_due_by)) },
  { id: "amount", sortKey: "amount", label: "Amount", cell: (d) => money(d.amount, d.currency), numeric: true },
];

export function Refunds() {
  const { scope, mode } = useSeller();
  const page = pageParam();
  const sorting = params().get("sorting") ?? "-created_at";
  const list = useLoad(() => v1<ListPage<Refund>>(scope, "GET", "/refunds/", { query: { page, limit: LIMIT, sorting } }), `${page}|${sorting}`);
  return (
    <>
      <Loading loading={list.loading} error={list.error} />
      {list.data && list.data.items.length === 0 && (
        <Empty title={`No refunds yet${mode === "sandbox" ? " in the sandbox" : ""}.`} command="till refunds create --order <order id> --amount 500">
          A refund gives back all or part of a paid order: open the order and refund it there. Each refund makes a credit note.
        </Empty>
      )}
      {list.data && list.data.items.length > 0 && (
        <>
          <DataTable
            caption="Refunds" rows={list.data.items} columns={REFUND_COLUMNS} sorting={sorting}
            onSort={(s) => window.location.assign(href("/orders", { view: "refunds", sorting: s }))}
          />
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
    </>
  );
}

/** Accepting a dispute (it closes lost), asked once more; `onDone` reads the list or the order again. */
export function AcceptDispute({ dispute, open, onClose, onDone }: { dispute: Dispute; open: boolean; onClose: () => void; onDone: () => void }) {
  const { scope } = useSeller();
  const toast = useToast();
  const [error, setError] = useState<string | undefined>(undefined);
  const accept = async () => {
    const r = await v1<Dispute>(scope, "POST", `/disputes/${dispute.id}/accept`);
    if (!r.ok) return setError(r.error.message);
    setError(undefined);
    toast(`Accepted the dispute: ${money(dispute.amount, dispute.currency)} goes back to the customer.`);
    onDone();
  };
  return (
    <>
      <Status tone="error">{error}</Status>
      <Confirm
        trigger={null} open={open} onOpenChange={(o) => !o && onClose()}
        title="Accept this dispute?"
        body={`You concede it: the dispute closes lost, ${money(dispute.amount, dispute.currency)} stays with the customer and the order's benefits are revoked. This cannot be taken back.`}
        confirm="Yes, accept the dispute" cancel="Keep it open"
        onConfirm={accept}
      />
    </>
  );
}

export function Disputes() {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("orders");
  const page = pageParam();
  const sorting = params().get("sorting") ?? "-created_at";
  // an order's page links here with its id: that order's disputes
  const orderId = params().get("order_id") ?? undefined;
  const list = useLoad(
    () => v1<ListPage<Dispute>>(scope, "GET", "/disputes/", { query: { page, limit: LIMIT, sorting, order_id: orderId } }),
    `${page}|${sorting}|${orderId ?? ""}`,
  );
  const [accepting, setAccepting] = useState<Dispute | null>(null);
  const actions = (d: Dispute): RowAction[] => [
    { label: "Open the order", href: href(`/orders/${d.order_id}`) },
    ...(mayWrite && !d.closed ? [{ label: "Accept the dispute…", danger: true, onSelect: () => setAccepting(d) }] : []),
  ];
  return (
    <>
      <Loading loading={list.loading} error={list.error} />
      {list.data && list.data.items.length === 0 && (
        <Empty title="No disputes." command="till api GET /v1/disputes/">
          A dispute opens when a customer's bank contests a payment; it shows here with the date its evidence is due.
        </Empty>
      )}
      {orderId && (
        <p className="hint">
          The disputes of one order. <a href={href("/orders", { view: "disputes" })}>Show every dispute</a>
        </p>
      )}
      {list.data && list.data.items.length > 0 && (
        <>
          <DataTable
            caption="Disputes" rows={list.data.items} columns={DISPUTE_COLUMNS} sorting={sorting}
            onSort={(s) => window.location.assign(href("/orders", { view: "disputes", order_id: orderId, sorting: s }))}
            actions={(d) => <RowActions name={`dispute of ${day(d.created_at)}`} items={actions(d)} />}
          />
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
      {accepting && <AcceptDispute dispute={accepting} open onClose={() => setAccepting(null)} onDone={list.reload} />}
    </>
  );
}
