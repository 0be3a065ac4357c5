// /meters: the side's meters (what they count and how); each opens its usage chart (MeterDetail).
import { v1, type ListPage } from "../api.js";
import { useSeller } from "../context.js";
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
                No meters yet: <code>till meters create</code> counts events for usage-based prices.
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
    </Layout>
  );
}
