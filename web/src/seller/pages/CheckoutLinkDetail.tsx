// /checkout-links/<id>: one checkout link — its URL with a copy button, a preview of the checkout it opens (the
// products and prices a buyer picks from, the discount, what is asked), its edit page as the header's action,
// and deleting it after asking once more. /checkout-links/new and …/<id>/edit are the form (CheckoutLinkForm).
import { useState } from "react";
import "../catalog.css";
import { Status } from "../../ui.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { useFlash } from "../kit/flash.js";
import { Layout } from "../Layout.js";
import { day, Facts, Loading, money, ReadOnly } from "../parts.js";
import { priceDescription } from "../prices.js";
import { useToast } from "../Toasts.js";
import { href } from "../url.js";
import { CheckoutLinkForm } from "./CheckoutLinkForm.js";
import { copyUrl, deleteLink, DELETE_LINK_BODY, linkName, type CheckoutLink } from "./CheckoutLinks.js";

const BACK = () => ({ href: href("/checkout-links"), label: "Checkout links" });

function discountOff(d: NonNullable<CheckoutLink["discount"]>): string {
  const off = d.type === "percentage" ? `${(d.basis_points ?? 0) / 100} % off` : `${money(d.amount ?? 0, d.currency ?? "usd")} off`;
  return `${d.name}: ${off}${d.duration === "once" ? "" : `, ${d.duration}`}`;
}

/** The checkout the link opens, as a buyer meets it: each product with the prices to pick from, then the rest. */
function Preview({ link }: { link: CheckoutLink }) {
  return (
    <section aria-labelledby="preview-h" className="checkout-preview">
      <h2 id="preview-h">Preview of the checkout</h2>
      <div className="preview-card">
        <ul className="preview-products" aria-label="Products offered">
          {link.products.map((p) => (
            <li key={p.id}>
              <strong>{p.name}</strong>
              {p.description && <span className="hint"> — {p.description}</span>}
              <ul>
                {p.prices
                  .filter((pr) => !pr.is_archived)
                  .map((pr) => (
                    <li key={pr.id}>{priceDescription(pr, p.recurring_interval)}</li>
                  ))}
              </ul>
            </li>
          ))}
        </ul>
        <ul className="preview-notes" aria-label="What the checkout asks">
          {link.discount && <li>Discount applied: {discountOff(link.discount)}</li>}
          <li>{link.allow_discount_codes ? "A field for a discount code" : "No discount code field"}</li>
          <li>{link.require_billing_address ? "Asks for the billing address" : "Asks only the country for the billing address"}</li>
          <li>After payment: {link.success_url ?? "till's confirmation page"}</li>
        </ul>
      </div>
      <p>
        <a href={link.url} target="_blank" rel="noopener noreferrer">
          Open the checkout in a new tab
        </a>{" "}
        <span className="hint">(opening it starts a checkout, as a buyer would)</span>
      </p>
    </section>
  );
}

export function CheckoutLinkDetail({ id }: { id: string }) {
  const { scope } = useSeller();
  const toast = useToast();
  const mayWrite = useMayWrite("checkout_links");
  const loaded = useLoad(() => v1<CheckoutLink>(scope, "GET", `/checkout-links/${id}`), id);
  const [error, setError] = useState<string | undefined>(undefined);
  const link = loaded.data;
  useFlash({ created: "Created the checkout link: copy its URL to share it.", saved: "Saved the checkout link." }, Boolean(link));
  if (!link) {
    return (
      <Layout title="Checkout link" back={BACK()}>
        <Loading loading={loaded.loading} error={loaded.error} />
      </Layout>
    );
  }
  const remove = async () => {
    const failed = await deleteLink(scope, link);
    if (failed) return setError(failed);
    window.location.assign(href("/checkout-links", { deleted: 1 }));
  };
  const edit = mayWrite ? (
    <a className="button primary" href={href(`/checkout-links/${link.id}/edit`)}>
      Edit link
    </a>
  ) : undefined;
  return (
    <Layout title={linkName(link)} back={BACK()} action={edit}>
      <div className="copy-field">
        <label htmlFor="link-url">The link&apos;s URL</label>
        <div className="copy-row">
          <input id="link-url" readOnly value={link.url} onFocus={(e) => e.currentTarget.select()} />
          <button type="button" onClick={() => void copyUrl(link, toast)}>
            Copy URL
          </button>
        </div>
      </div>
      <Facts
        items={[
          ["Sells", link.products.map((p) => p.name).join(", ")],
          ["Discount", link.discount?.name ?? "none"],
          ["Created", day(link.created_at)],
        ]}
      />
      <Preview link={link} />
      {mayWrite ? (
        <section aria-labelledby="delete-h" className="danger-zone">
          <h2 id="delete-h">Delete</h2>
          <p>{DELETE_LINK_BODY}</p>
          <Confirm trigger="Delete the link" title={`Delete ${linkName(link)}?`} body={DELETE_LINK_BODY} confirm="Yes, delete it" cancel="Keep it" onConfirm={remove} />
          <Status tone="error">{error}</Status>
        </section>
      ) : (
        <ReadOnly what="change checkout links" />
      )}
    </Layout>
  );
}

export function CheckoutLinkEdit({ id }: { id: string | null }) {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("checkout_links");
  const loaded = useLoad(() => (id ? v1<CheckoutLink>(scope, "GET", `/checkout-links/${id}`) : Promise.resolve({ ok: true as const, data: null })), id ?? "new");
  const back = id ? { href: href(`/checkout-links/${id}`), label: loaded.data ? linkName(loaded.data) : "The link" } : BACK();
  if (id && !loaded.data) {
    return (
      <Layout title="Edit the checkout link" back={back}>
        <Loading loading={loaded.loading} error={loaded.error} />
      </Layout>
    );
  }
  return (
    <Layout title={loaded.data ? `Edit ${linkName(loaded.data)}` : "New checkout link"} back={back}>
      {mayWrite ? <CheckoutLinkForm link={loaded.data ?? null} /> : <ReadOnly what="change checkout links" />}
    </Layout>
  );
}
