// /meters: the side's meters (what they count and how), each opening its usage chart (MeterDetail), and a form
// that makes one (MeterCreate).
import { v1, type ListPage } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { CreateMeter } from "./MeterCreate.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { day, Loading, Pager, Table } from "../parts.js";
import { href, pageParam } from "../url.js";

export interface Meter {
  id: string;
  name: string;
  created_at: string;
  aggregation: { func: string; property?: string | null };
}

export function Meters() {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("meters");
  const page = pageParam();
  const list = useLoad(() => v1<ListPage<Meter>>(scope, "GET", "/meters/", { query: { page, limit: 20 } }), String(page));
  return (
    <Layout title="Meters">
      <Loading loading={list.loading} error={list.error} />
      {list.data && (
        <>
          <Table
            caption="Meters"
            rows={list.data.items}
            empty={
              <>
                No meters yet: make one below (or with <code>till meters create</code>) to count events for usage-based prices.
              </>
            }
            columns={[
              { label: "Name", cell: (m) => <a href={href(`/meters/${m.id}`)}>{m.name}</a> },
              { label: "Counts", cell: (m) => `${m.aggregation.func}${m.aggregation.property ? ` of ${m.aggregation.property}` : ""}` },
              { label: "Made", cell: (m) => day(m.created_at) },
            ]}
          />
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
      {mayWrite && (
        <section aria-labelledby="new-meter-h">
          <h2 id="new-meter-h">New meter</h2>
          <CreateMeter />
        </section>
      )}
    </Layout>
  );
}
