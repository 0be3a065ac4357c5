// /discounts/<id>: one discount — what it takes off, for how long, how often used, its dates — with its edit page
// as the header's action, and deleting it after asking once more (what already has it keeps it). /discounts/new
// and /discounts/<id>/edit are the form (DiscountForm).
import { useState } from "react";
import { Status } from "../../ui.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { copyText } from "../kit/copy.js";
import { useFlash } from "../kit/flash.js";
import { Layout } from "../Layout.js";
import { day, Facts, Loading, ReadOnly } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href } from "../url.js";
import { DiscountForm } from "./DiscountForm.js";
import { DELETE_BODY, deleteDiscount, lasts, off, used, type Discount } from "./Discounts.js";

const BACK = () => ({ href: href("/discounts"), label: "Discounts" });

export function DiscountDetail({ id }: { id: string }) {
  const { scope } = useSeller();
  const toast = useToast();
  const mayWrite = useMayWrite("discounts");
  const loaded = useLoad(() => v1<Discount>(scope, "GET", `/discounts/${id}`), id);
  const [error, setError] = useState<string | undefined>(undefined);
  const d = loaded.data;
  useFlash({ created: `Created ${d?.name ?? "the discount"}.`, saved: `Saved ${d?.name ?? "the discount"}.` }, Boolean(d));
  if (!d) {
    return (
      <Layout title="Discount" back={BACK()}>
        <Loading loading={loaded.loading} error={loaded.error} />
      </Layout>
    );
  }
  const remove = async () => {
    const failed = await deleteDiscount(scope, d);
    if (failed) return setError(failed);
    window.location.assign(href("/discounts", { deleted: 1 }));
  };
  const edit = mayWrite ? (
    <a className="button primary" href={href(`/discounts/${d.id}/edit`)}>
      Edit discount
    </a>
  ) : undefined;
  return (
    <Layout title={d.name} back={BACK()} action={edit}>
      <Facts
        items={[
          ["Code", d.code ? <code key="code">{d.code}</code> : "none: links and the API apply it"],
          ["Off", off(d)],
          ["Applies", lasts(d)],
          ["Used", used(d)],
          ["Starts", d.starts_at ? day(d.starts_at) : "now"],
          ["Ends", d.ends_at ? day(d.ends_at) : "never"],
          ["Id", <code key="id">{d.id}</code>],
        ]}
      />
      {d.code && (
        <p>
          <button type="button" onClick={() => void copyText(d.code ?? "").then((ok) => toast(ok ? `Copied the code ${d.code ?? ""}.` : "The browser refused to copy."))}>
            Copy the code
          </button>
        </p>
      )}
      {mayWrite ? (
        <section aria-labelledby="delete-h" className="danger-zone">
          <h2 id="delete-h">Delete</h2>
          <p>{DELETE_BODY}</p>
          <Confirm trigger="Delete the discount" title={`Delete ${d.name}?`} body={DELETE_BODY} confirm="Yes, delete it" cancel="Keep it" onConfirm={remove} />
          <Status tone="error">{error}</Status>
        </section>
      ) : (
        <ReadOnly what="change discounts" />
      )}
    </Layout>
  );
}

export function DiscountEdit({ id }: { id: string | null }) {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("discounts");
  const loaded = useLoad(() => (id ? v1<Discount>(scope, "GET", `/discounts/${id}`) : Promise.resolve({ ok: true as const, data: null })), id ?? "new");
  const back = id ? { href: href(`/discounts/${id}`), label: loaded.data?.name ?? "The discount" } : BACK();
  if (id && !loaded.data) {
    return (
      <Layout title="Edit the discount" back={back}>
        <Loading loading={loaded.loading} error={loaded.error} />
      </Layout>
    );
  }
  return (
    <Layout title={loaded.data ? `Edit ${loaded.data.name}` : "New discount"} back={back}>
      {mayWrite ? <DiscountForm discount={loaded.data ?? null} /> : <ReadOnly what="change discounts" />}
    </Layout>
  );
}
