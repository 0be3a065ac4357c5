// The home's payments to look at: the latest failed charges (newest first), each with why the bank declined it and
// a link to its order, where the seller sees what is owed and what was tried.
import { v1, type ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { day, Loading, money, Table } from "../parts.js";
import { href } from "../url.js";

interface Payment {
  id: string;
  created_at: string;
  amount: number;
  currency: string;
  decline_reason: string | null;
  decline_message: string | null;
  order_id: string | null;
  method: string;
}

/** How many the home lists; the count says how many there are in all. */
const SHOWN = 5;

export function FailedPayments() {
  const { scope } = useSeller();
  const failed = useLoad(() => v1<ListPage<Payment>>(scope, "GET", "/payments/", { query: { status: "failed", limit: SHOWN, sorting: "-created_at" } }), "failed");
  const total = failed.data?.pagination.total_count ?? 0;
  return (
    <section className="failed-payments" aria-labelledby="failed-payments">
      <h2 id="failed-payments">Failed payments to look at</h2>
      <Loading loading={failed.loading} error={failed.error} />
      {failed.data && (
        <>
          {total > SHOWN && (
            <p className="hint">
              The latest {SHOWN} of {total.toLocaleString("en")}.
            </p>
          )}
          <Table
            caption="Failed payments"
            rows={failed.data.items}
            empty="No failed payments. When a charge fails it shows here, with its order."
            columns={[
              { label: "Date", cell: (p) => day(p.created_at) },
              { label: "Amount", cell: (p) => money(p.amount, p.currency), numeric: true },
              { label: "Why", cell: (p) => p.decline_message ?? p.decline_reason?.replace(/_/g, " ") ?? "declined" },
              { label: "Order", cell: (p) => (p.order_id ? <a href={href(`/orders/${p.order_id}`)}>Order {p.order_id.slice(0, 8)}</a> : "—") },
            ]}
          />
        </>
      )}
    </section>
  );
}
