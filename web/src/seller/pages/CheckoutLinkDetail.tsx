// /checkout-links/<id>: one checkout link — its URL, what it sells — changed (label, product, discount, the page
// after payment, discount codes, billing address) with PATCH, or deleted. A role that may not change links reads.
import { useState, type FormEvent } from "react";
import { CheckboxField, Field, Status, type Tone } from "../../ui.js";
import { v1 } from "../api.js";
import { Chooser } from "../Chooser.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { day, Facts, Loading, ReadOnly } from "../parts.js";
import { href } from "../url.js";
import type { Product } from "../wire.js";
import type { CheckoutLink } from "./CheckoutLinks.js";
import { DeleteButton } from "./DeleteButton.js";
import type { Discount } from "./Discounts.js";

const text = (f: FormData, name: string) => String(f.get(name) ?? "").trim() || null;

function EditLink({ link, onSaved }: { link: CheckoutLink; onSaved: (l: CheckoutLink) => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const body: Record<string, unknown> = {
      label: text(f, "label"),
      success_url: text(f, "success_url"),
      allow_discount_codes: f.get("allow_discount_codes") === "on",
      require_billing_address: f.get("require_billing_address") === "on",
    };
    const product = text(f, "product");
    if (product) body.products = [product];
    const discount = text(f, "discount");
    if (discount === "none") body.discount_id = null;
    else if (discount) body.discount_id = discount;
    const r = await v1<CheckoutLink>(scope, "PATCH", `/checkout-links/${link.id}`, { body });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: "Saved the link." });
    onSaved(r.data);
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label="Edit the checkout link" className="stack">
      <Field label="Label" name="label" optional maxLength={256} defaultValue={link.label ?? ""} />
      <Chooser<Product> label="Sell instead" name="product" path="/products/" filters={{ is_archived: false }} describe={(p) => p.name} placeholder="Keep its products" />
      <Chooser<Discount> label="Discount applied" name="discount" path="/discounts/" describe={(d) => d.name} placeholder="Keep its discount" extra={[{ value: "none", label: "No discount" }]} />
      <Field label="After payment, go to" name="success_url" type="url" optional defaultValue={link.success_url ?? ""} placeholder="https://example.com/thanks" />
      <CheckboxField label="Buyers may enter a discount code" name="allow_discount_codes" defaultChecked={link.allow_discount_codes} />
      <CheckboxField label="Ask for the billing address" name="require_billing_address" defaultChecked={link.require_billing_address} />
      <button type="submit" className="primary">
        Save the link
      </button>
      <Status tone={said?.tone}>{said?.text}</Status>
    </form>
  );
}

export function CheckoutLinkDetail({ id }: { id: string }) {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("checkout_links");
  const loaded = useLoad(() => v1<CheckoutLink>(scope, "GET", `/checkout-links/${id}`), id);
  const [saved, setSaved] = useState<CheckoutLink | null>(null);
  const link = saved ?? loaded.data;
  return (
    <Layout title={link ? (link.label ?? "Checkout link") : "Checkout link"}>
      <p>
        <a href={href("/checkout-links")}>All checkout links</a>
      </p>
      <Loading loading={loaded.loading} error={loaded.error} />
      {link && (
        <>
          <Facts
            items={[
              ["URL", <a key="url" href={link.url}>{link.url}</a>],
              ["Sells", link.products.map((p) => p.name).join(", ")],
              ["Discount", link.discount?.name ?? "none"],
              ["Made", day(link.created_at)],
            ]}
          />
          {mayWrite ? (
            <>
              <section aria-labelledby="edit-link-h">
                <h2 id="edit-link-h">Change it</h2>
                <EditLink link={link} onSaved={setSaved} />
              </section>
              <DeleteButton path={`/checkout-links/${link.id}`} what="the checkout link" hint="Its URL stops working; checkouts already opened go on." back="/checkout-links" />
            </>
          ) : (
            <ReadOnly what="change checkout links" />
          )}
        </>
      )}
    </Layout>
  );
}
