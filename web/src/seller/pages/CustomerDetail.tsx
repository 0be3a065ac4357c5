// /customers/<id>: one customer — their state (active subscriptions, granted benefits), meters and balances,
// wallets, members and seats, latest orders and subscriptions, benefit grants (CustomerSections.tsx) and their
// timeline; its id copied from the page's header.
import { v1 } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { copyText } from "../kit/copy.js";
import { Timeline } from "../kit/Timeline.js";
import { Layout } from "../Layout.js";
import { useToast } from "../Toasts.js";
import { day, Facts, Loading } from "../parts.js";
import { href } from "../url.js";
import type { CustomerState } from "../wire.js";
import { Lists, Members, Meters, Seats, Wallets } from "./CustomerSections.js";
import "../sales.css";

export function CustomerDetail({ id }: { id: string }) {
  const { scope } = useSeller();
  const state = useLoad(() => v1<CustomerState>(scope, "GET", `/customers/${id}/state`), id);
  const toast = useToast();
  const c = state.data;
  const copyId = async () => toast((await copyText(id)) ? "Copied the customer's id." : `The customer's id: ${id}`);
  const copy = (
    <button type="button" onClick={() => void copyId()}>
      Copy id
    </button>
  );
  return (
    <Layout title={c ? c.email : "Customer"} back={{ href: href("/customers"), label: "All customers" }} action={copy}>
      <Loading loading={state.loading} error={state.error} />
      {c && (
        <>
          <Facts
            items={[
              ["Name", c.name ?? "—"],
              ["Customer since", day(c.created_at)],
              ["External id", c.external_id ?? "—"],
              ["Active subscriptions", String(c.active_subscriptions.length)],
              ["Granted benefits", String(c.granted_benefits.length)],
            ]}
          />
          <div className="detail-sections">
            <Meters meters={c.active_meters} />
            <Wallets id={id} />
            <Members id={id} />
            <Seats id={id} />
            <Lists id={id} />
            <Timeline path={`/customers/${id}`} label="customer" />
          </div>
        </>
      )}
    </Layout>
  );
}
