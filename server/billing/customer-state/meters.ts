// /v1/customer-meters (`customerMeters.list` / `get`): Polar's CustomerMeter, a customer's usage of one meter
// (consumed, credited, balance) with the customer and the meter. till keeps no customer-meter rows: a
// customer's meters are computed as CustomerState.active_meters computes them (meters/service.ts
// `customerMeters`), and a customer meter's id is the stable id derived from (customer, meter) there.
// Each request's cost is bounded: without a customer filter the list computes the organization's newest
// MAX_LISTED_CUSTOMERS live customers (a few at a time), and a get reads ids in keyset chunks until it finds the
// pair its id names, then computes that one customer's meter.
import type { Queryable } from "../../db/client.js";
import { listGrantedBenefitsForCustomer } from "../benefits/service.js";
import { isUuid } from "../http.js";
import { notFound } from "../errors.js";
import type { SortKey } from "../listing.js";
import { customerMeterId, customerMeters, liveMetersOfOrganization, loadMeters, type LiveMeters } from "../meters/service.js";
import { findCustomersByExternalIds, findCustomersByIds, liveCustomerIdsAfter, newestLiveCustomerRows } from "../customers/service.js";
import { toCustomerWire, type CustomerRow } from "../customers/wire.js";
import { heldUnitsOf, withHeld } from "../entitlements/service.js";

export type CustomerMeterSortKey =
  | "created_at"
  | "modified_at"
  | "customer_id"
  | "customer_name"
  | "meter_id"
  | "meter_name"
  | "consumed_units"
  | "credited_units"
  | "balance";

export interface CustomerMeterFilter {
  customerIds?: string[];
  externalCustomerIds?: string[];
  meterIds?: string[];
}

/** How many customers' usage is computed at once. */
const CONCURRENCY = 4;
/** The customers an unfiltered list computes (the newest); filter by customer_id or external_customer_id for others. */
export const MAX_LISTED_CUSTOMERS = 1_000;
/** How many customer ids a get hashes per read. */
const KEY_CHUNK = 1_000;

async function metersOfCustomers(db: Queryable, organizationId: string, customers: CustomerRow[], live: LiveMeters) {
  const out: Array<{ row: CustomerRow; meters: Awaited<ReturnType<typeof customerMeters>> }> = [];
  for (let i = 0; i < customers.length; i += CONCURRENCY) {
    const batch = customers.slice(i, i + CONCURRENCY);
    out.push(
      ...(await Promise.all(
        batch.map(async (row) => {
          const [grants, held] = await Promise.all([listGrantedBenefitsForCustomer(db, organizationId, row.id), heldUnitsOf(db, organizationId, row.id)]);
          return { row, meters: withHeld(await customerMeters(db, organizationId, row, grants, live), held) };
        }),
      )),
    );
  }
  return out;
}

async function toWire(db: Queryable, organizationId: string, computed: Awaited<ReturnType<typeof metersOfCustomers>>) {
  const meters = await loadMeters(
    db,
    organizationId,
    computed.flatMap((c) => c.meters.map((m) => m.meter_id)),
  );
  return computed.flatMap(({ row, meters: usage }) => {
    const customer = toCustomerWire(row);
    return usage.flatMap((m) => {
      const meter = meters.get(m.meter_id);
      return meter ? [{ ...m, customer_id: row.id, customer, meter }] : [];
    });
  });
}

type CustomerMeterWire = Awaited<ReturnType<typeof toWire>>[number];

function sortValue(m: CustomerMeterWire, key: CustomerMeterSortKey): string | number {
  switch (key) {
    case "customer_name":
      return m.customer.name ?? "";
    case "meter_name":
      return m.meter.name;
    case "modified_at":
      return m.modified_at ?? m.created_at;
    default:
      return m[key];
  }
}

function compare(sorting: Array<SortKey<CustomerMeterSortKey>>) {
  return (a: CustomerMeterWire, b: CustomerMeterWire) => {
    for (const { key, desc } of sorting) {
      const x = sortValue(a, key);
      const y = sortValue(b, key);
      const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      if (c !== 0) return desc ? -c : c;
    }
    return a.id.localeCompare(b.id);
  };
}

/** The organization's customer meters (customers with usage or credit on a live meter), filtered, sorted, one page. */
export async function listCustomerMeters(
  db: Queryable,
  organizationId: string,
  filter: CustomerMeterFilter,
  sorting: Array<SortKey<CustomerMeterSortKey>>,
  pageNo: number,
  limit: number,
) {
  const live = await liveMetersOfOrganization(db, organizationId);
  let customers: CustomerRow[];
  if (filter.customerIds || filter.externalCustomerIds) {
    const byId = filter.customerIds ? await findCustomersByIds(db, organizationId, filter.customerIds.filter(isUuid)) : null;
    const byExternal = filter.externalCustomerIds ? await findCustomersByExternalIds(db, organizationId, filter.externalCustomerIds) : null;
    const both = byId && byExternal ? byId.filter((c) => byExternal.some((e) => e.id === c.id)) : (byId ?? byExternal ?? []);
    customers = both.filter((c) => c.deletedAt === null);
  } else {
    customers = live.meters.length === 0 ? [] : await newestLiveCustomerRows(db, organizationId, MAX_LISTED_CUSTOMERS);
  }
  const meterIds = filter.meterIds?.map((id) => id.toLowerCase());
  const scoped = meterIds ? { ...live, meters: live.meters.filter((m) => meterIds.includes(m.id)) } : live;
  const all = (await toWire(db, organizationId, await metersOfCustomers(db, organizationId, customers, scoped))).sort(compare(sorting));
  return { items: all.slice((pageNo - 1) * limit, pageNo * limit), total: all.length };
}

/** One customer meter by its id: the (customer, meter) pair of this organization it names; else 404. */
export async function getCustomerMeter(db: Queryable, organizationId: string, id: string) {
  const missing = () => notFound("Customer meter not found");
  if (!isUuid(id)) throw missing();
  const wanted = id.toLowerCase();
  const live = await liveMetersOfOrganization(db, organizationId);
  if (live.meters.length === 0) throw missing();
  for (let after: string | null = null; ; ) {
    const ids = await liveCustomerIdsAfter(db, organizationId, after, KEY_CHUNK);
    for (const customerId of ids) {
      const meter = live.meters.find((m) => customerMeterId(customerId, m.id) === wanted);
      if (!meter) continue;
      const rows = await findCustomersByIds(db, organizationId, [customerId]);
      const [found] = (await toWire(db, organizationId, await metersOfCustomers(db, organizationId, rows, { ...live, meters: [meter] }))).filter(
        (m) => m.id === wanted,
      );
      if (found) return found;
      throw missing();
    }
    if (ids.length < KEY_CHUNK) throw missing();
    after = ids[ids.length - 1]!;
  }
}
