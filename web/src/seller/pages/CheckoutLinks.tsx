// /checkout-links: the side's shareable checkout links (their URL to copy, the products they sell), a form that
// makes one for a product; each opens its page (CheckoutLinkDetail) to change or delete it.
import { useState, type FormEvent } from "react";
import { Field, Status, type Tone } from "../../ui.js";
import { Chooser } from "../Chooser.js";
import { v1, type ListPage } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { day, Loading, Pager, Table } from "../parts.js";
import { href, pageParam } from "../url.js";
import type { Product } from "../wire.js";

export interface CheckoutLink {
  id: string;
  url: string;
  label: string | null;
  created_at: string;
  products: Array<{ id: string; name: string }>;
  success_url: string | null;
  allow_discount_codes: boolean;
  require_billing_address: boolean;
  discount: { id: string; name: string } | null;
}

function CreateLink({ onDone }: { onDone: () => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const product = String(form.get("product") ?? "");
    if (!product) return setSaid({ tone: "error", text: "Choose the product the link sells." });
    const label = String(form.get("label") ?? "").trim() || null;
    const r = await v1<CheckoutLink>(scope, "POST", "/checkout-links/", { body: { payment_processor: "stripe", products: [product], label } });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: `Link made: ${r.data.url}` });
    onDone();
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label="New checkout link" className="stack">
      <Chooser<Product> label="Product" name="product" path="/products/" filters={{ is_archived: false }} describe={(p) => p.name} />
      <Field label="Label" name="label" optional maxLength={200} />
      <button type="submit" className="primary">
        Make a checkout link
      </button>
      <Status tone={said?.tone}>{said?.text}</Status>
    </form>
  );
}

export function CheckoutLinks() {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("checkout_links");
  const page = pageParam();
  const list = useLoad(() => v1<ListPage<CheckoutLink>>(scope, "GET", "/checkout-links/", { query: { page, limit: 20 } }), String(page));
  return (
    <Layout title="Checkout links">
      <Loading loading={list.loading} error={list.error} />
      {list.data && (
        <>
          <Table
            caption="Checkout links"
            rows={list.data.items}
            empty="No checkout links yet."
            columns={[
              { label: "Link", cell: (l) => <a href={href(`/checkout-links/${l.id}`)}>{l.label ?? l.url}</a> },
              { label: "URL", cell: (l) => <code>{l.url}</code> },
              { label: "Products", cell: (l) => l.products.map((p) => p.name).join(", ") },
              { label: "Made", cell: (l) => day(l.created_at) },
            ]}
          />
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
      {mayWrite && (
        <section aria-labelledby="new-link-h">
          <h2 id="new-link-h">New checkout link</h2>
          <CreateLink onDone={list.reload} />
        </section>
      )}
    </Layout>
  );
}
