// A customer page's sections: their meters (used, credited, left), their wallets' balances, their team's members
// with their roles, the seats of their seat-based subscriptions (who holds each, claimed or invited), their latest
// orders and subscriptions (each links to the full list, narrowed to them) and their benefit grants, a
// page at a time (`grants_page` in the address). Each says plainly when there is nothing.
import type { ReactNode } from "react";
import type { Result } from "../../api.js";
import { v1, type ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { DataTable, type DataColumn } from "../kit/DataTable.js";
import { RowActions } from "../kit/RowActions.js";
import { day, Loading, money, Pager } from "../parts.js";
import { href, pageParam } from "../url.js";
import type { BenefitGrant, CustomerState, Order, Subscription } from "../wire.js";
import { benefitType, meterLeft, orderStatus, seatStatus, subscriptionStatus } from "../words.js";

const RECENT = 10;
const words = (s: string) => s.replace(/_/g, " ");

type MeterRow = CustomerState["active_meters"][number];
interface Wallet {
  id: string;
  balance: number;
  currency: string;
  created_at: string;
}
interface Member {
  id: string;
  email: string;
  name: string | null;
  role: string;
}

interface Seat {
  id: string;
  status: string;
  email: string | null;
  customer_email: string | null;
  claimed_at: string | null;
}
interface SeatsOf {
  subscription: Subscription;
  seats: Seat[];
  available_seats: number;
  total_seats: number;
}

function Section({ id, title, loading, error, children }: { id: string; title: string; loading: boolean; error?: string; children: ReactNode }) {
  return (
    <section aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{title}</h2>
      <Loading loading={loading} error={error} />
      {children}
    </section>
  );
}

export function Meters({ meters }: { meters: MeterRow[] }) {
  const { scope } = useSeller();
  const names = useLoad(() => v1<ListPage<{ id: string; name: string }>>(scope, "GET", "/meters/", { query: { limit: 100 } }), "meters");
  const name = new Map((names.data?.items ?? []).map((m) => [m.id, m.name]));
  const columns: Array<DataColumn<MeterRow>> = [
    { id: "meter", label: "Meter", cell: (m) => <a href={href(`/meters/${m.meter_id}`)}>{name.get(m.meter_id) ?? "Meter"}</a> },
    { id: "used", label: "Used", cell: (m) => String(m.consumed_units), numeric: true },
    { id: "credited", label: "Credited", cell: (m) => String(m.credited_units), numeric: true },
    { id: "balance", label: "Left", cell: (m) => meterLeft(m.balance), numeric: true },
  ];
  return (
    <Section id="meters" title="Meters and balances" loading={false}>
      {meters.length === 0 ? <p className="hint">No metered usage: their plans meter nothing yet.</p> : <DataTable caption="The customer's meters" rows={meters} columns={columns} />}
    </Section>
  );
}

export function Wallets({ id }: { id: string }) {
  const { scope } = useSeller();
  const list = useLoad(() => v1<ListPage<Wallet>>(scope, "GET", "/wallets/", { query: { customer_id: id, limit: 20 } }), `w${id}`);
  const columns: Array<DataColumn<Wallet>> = [
    { id: "currency", label: "Currency", cell: (w) => w.currency.toUpperCase() },
    { id: "since", label: "Since", cell: (w) => day(w.created_at) },
    { id: "balance", label: "Balance", cell: (w) => money(w.balance, w.currency), numeric: true },
  ];
  return (
    <Section id="wallets" title="Wallets" loading={list.loading} error={list.error}>
      {list.data && list.data.items.length === 0 && <p className="hint">No wallet: a credits pack or a top-up opens one.</p>}
      {list.data && list.data.items.length > 0 && <DataTable caption="The customer's wallets" rows={list.data.items} columns={columns} />}
    </Section>
  );
}

export function Members({ id }: { id: string }) {
  const { scope } = useSeller();
  const list = useLoad(() => v1<ListPage<Member>>(scope, "GET", "/members/", { query: { customer_id: id, limit: 50 } }), `m${id}`);
  const columns: Array<DataColumn<Member>> = [
    { id: "email", label: "Email", cell: (m) => m.email },
    { id: "name", label: "Name", cell: (m) => m.name ?? "—" },
    { id: "role", label: "Role", cell: (m) => words(m.role) },
  ];
  return (
    <Section id="members" title="Members" loading={list.loading} error={list.error}>
      {list.data &&
        (list.data.items.length === 0 ? (
          <p className="hint">No members: a business customer's team shows here, each with their role.</p>
        ) : (
          <DataTable caption="The customer's members" rows={list.data.items} columns={columns} />
        ))}
    </Section>
  );
}

const SEAT_COLUMNS: Array<DataColumn<Seat>> = [
  { id: "holder", label: "Holder", cell: (x) => x.customer_email ?? x.email ?? "—" },
  { id: "status", label: "Status", cell: (x) => seatStatus(x.status) },
  { id: "claimed", label: "Claimed", cell: (x) => (x.claimed_at ? day(x.claimed_at) : "—") },
];

/** Each seat-based subscription's seats (GET /v1/customer-seats by subscription), read together. */
async function loadSeats(scope: ReturnType<typeof useSeller>["scope"], id: string): Promise<Result<SeatsOf[]>> {
  const subs = await v1<ListPage<Subscription>>(scope, "GET", "/subscriptions/", { query: { customer_id: id, limit: 100 } });
  if (!subs.ok) return subs;
  const seated = subs.data.items.filter((x) => x.seats != null);
  const lists = await Promise.all(seated.map((x) => v1<Omit<SeatsOf, "subscription">>(scope, "GET", "/customer-seats", { query: { subscription_id: x.id } })));
  const failed = lists.find((l) => !l.ok);
  if (failed && !failed.ok) return failed;
  return { ok: true, data: lists.flatMap((l, i) => (l.ok && seated[i] ? [{ ...l.data, subscription: seated[i] }] : [])) };
}

export function Seats({ id }: { id: string }) {
  const { scope } = useSeller();
  const list = useLoad(() => loadSeats(scope, id), `seats${id}`);
  return (
    <Section id="seats" title="Seats" loading={list.loading} error={list.error}>
      {list.data && list.data.length === 0 && <p className="hint">No seat-based subscription: a plan priced per seat shows its seats here.</p>}
      {list.data?.map((x) => (
        <div key={x.subscription.id} className="seat-group">
          <p>
            <a href={href(`/subscriptions/${x.subscription.id}`)}>{x.subscription.product.name}</a>: {x.total_seats - x.available_seats} of {x.total_seats} seats
            taken
          </p>
          {x.seats.length > 0 && <DataTable caption={`Seats of ${x.subscription.product.name}`} rows={x.seats} columns={SEAT_COLUMNS} />}
        </div>
      ))}
    </Section>
  );
}

const ORDER_COLUMNS: Array<DataColumn<Order>> = [
  { id: "date", label: "Date", cell: (o) => <a href={href(`/orders/${o.id}`)}>{day(o.created_at)}</a> },
  { id: "product", label: "Product", cell: (o) => o.product?.name ?? o.items[0]?.label ?? "—" },
  { id: "status", label: "Status", cell: (o) => orderStatus(o.status) },
  { id: "total", label: "Total", cell: (o) => money(o.total_amount, o.currency), numeric: true },
];

const SUB_COLUMNS: Array<DataColumn<Subscription>> = [
  { id: "product", label: "Product", cell: (s) => <a href={href(`/subscriptions/${s.id}`)}>{s.product.name}</a> },
  { id: "status", label: "Status", cell: (s) => `${subscriptionStatus(s.status)}${s.cancel_at_period_end ? ", ends at period end" : ""}` },
  { id: "amount", label: "Amount", cell: (s) => `${money(s.amount, s.currency)} / ${s.recurring_interval}`, numeric: true },
  { id: "renews", label: "Renews", cell: (s) => (s.ended_at ? "—" : day(s.current_period_end)) },
  { id: "seats", label: "Seats", cell: (s) => (s.seats ? String(s.seats) : "—"), numeric: true },
];

const GRANT_COLUMNS: Array<DataColumn<BenefitGrant>> = [
  { id: "benefit", label: "Benefit", cell: (g) => g.benefit.description },
  { id: "type", label: "Type", cell: (g) => benefitType(g.benefit.type) },
  { id: "state", label: "State", cell: (g) => (g.is_revoked ? `revoked ${day(g.revoked_at)}` : g.is_granted ? `granted ${day(g.granted_at)}` : "pending") },
];

export function Lists({ id }: { id: string }) {
  const { scope } = useSeller();
  const orders = useLoad(() => v1<ListPage<Order>>(scope, "GET", "/orders/", { query: { customer_id: id, limit: RECENT, sorting: "-created_at" } }), `o${id}`);
  const subs = useLoad(() => v1<ListPage<Subscription>>(scope, "GET", "/subscriptions/", { query: { customer_id: id, limit: RECENT } }), `s${id}`);
  const grantsPage = pageParam("grants_page");
  const grants = useLoad(
    () => v1<ListPage<BenefitGrant>>(scope, "GET", "/benefit-grants/", { query: { customer_id: id, limit: RECENT, page: grantsPage } }),
    `g${id}|${grantsPage}`,
  );
  return (
    <>
      <Section id="orders" title="Orders" loading={orders.loading} error={orders.error}>
        {orders.data && orders.data.items.length === 0 && <p className="hint">No orders.</p>}
        {orders.data && orders.data.items.length > 0 && (
          <DataTable
            caption="The customer's orders" rows={orders.data.items} columns={ORDER_COLUMNS}
            actions={(o) => <RowActions name={`order of ${day(o.created_at)}`} items={[{ label: "Open", href: href(`/orders/${o.id}`) }]} />}
          />
        )}
        {orders.data && orders.data.pagination.total_count > RECENT && <a href={href("/orders", { customer_id: id })}>All {orders.data.pagination.total_count} orders</a>}
      </Section>
      <Section id="subs" title="Subscriptions" loading={subs.loading} error={subs.error}>
        {subs.data && subs.data.items.length === 0 && <p className="hint">No subscriptions.</p>}
        {subs.data && subs.data.items.length > 0 && (
          <DataTable
            caption="The customer's subscriptions" rows={subs.data.items} columns={SUB_COLUMNS}
            actions={(s) => <RowActions name={s.product.name} items={[{ label: "Open", href: href(`/subscriptions/${s.id}`) }]} />}
          />
        )}
        {subs.data && subs.data.pagination.total_count > RECENT && (
          <a href={href("/subscriptions", { customer_id: id })}>All {subs.data.pagination.total_count} subscriptions</a>
        )}
      </Section>
      <Section id="grants" title="Benefit grants" loading={grants.loading} error={grants.error}>
        {grants.data && grants.data.items.length === 0 && <p className="hint">No benefits granted.</p>}
        {grants.data && grants.data.items.length > 0 && <DataTable caption="The customer's benefit grants" rows={grants.data.items} columns={GRANT_COLUMNS} />}
        {grants.data && grants.data.pagination.max_page > 1 && (
          <Pager page={grantsPage} maxPage={grants.data.pagination.max_page} total={grants.data.pagination.total_count} param="grants_page" label="Pages of benefit grants" />
        )}
      </Section>
    </>
  );
}
