// /discounts/<id>: one discount — what it takes off, for how long, how often used — changed (name, code, the
// most redemptions, the last day it applies) with PATCH, or deleted (checkouts and subscriptions that already
// have it keep it). A role that may not change discounts reads.
import { useState, type FormEvent } from "react";
import { Field, Status, type Tone } from "../../ui.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { day, Facts, Loading, ReadOnly } from "../parts.js";
import { href } from "../url.js";
import { DeleteButton } from "./DeleteButton.js";
import { lasts, off, type Discount } from "./Discounts.js";

function EditDiscount({ discount, onSaved }: { discount: Discount; onSaved: (d: Discount) => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const max = String(f.get("max_redemptions") ?? "").trim();
    const ends = String(f.get("ends_at") ?? "").trim();
    const body = {
      name: String(f.get("name") ?? "").trim(),
      code: String(f.get("code") ?? "").trim() || null,
      max_redemptions: max ? Number(max) : null,
      ends_at: ends ? `${ends}T23:59:59Z` : null,
    };
    const r = await v1<Discount>(scope, "PATCH", `/discounts/${discount.id}`, { body });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: `Saved ${r.data.name}.` });
    onSaved(r.data);
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label="Edit the discount" className="stack">
      <Field label="Name" name="name" required maxLength={100} defaultValue={discount.name} />
      <Field label="Code" name="code" optional maxLength={32} defaultValue={discount.code ?? ""} hint="Empty: only links and the API apply it." />
      <Field label="Most redemptions" name="max_redemptions" optional inputMode="numeric" pattern="[0-9]*" defaultValue={discount.max_redemptions ?? ""} />
      <Field label="Last day it applies" name="ends_at" type="date" optional defaultValue={discount.ends_at?.slice(0, 10) ?? ""} />
      <button type="submit" className="primary">
        Save the discount
      </button>
      <Status tone={said?.tone}>{said?.text}</Status>
    </form>
  );
}

export function DiscountDetail({ id }: { id: string }) {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("discounts");
  const loaded = useLoad(() => v1<Discount>(scope, "GET", `/discounts/${id}`), id);
  const [saved, setSaved] = useState<Discount | null>(null);
  const d = saved ?? loaded.data;
  return (
    <Layout title={d ? d.name : "Discount"}>
      <p>
        <a href={href("/discounts")}>All discounts</a>
      </p>
      <Loading loading={loaded.loading} error={loaded.error} />
      {d && (
        <>
          <Facts
            items={[
              ["Code", d.code ? <code key="code">{d.code}</code> : "none"],
              ["Off", off(d)],
              ["Applies", lasts(d)],
              ["Used", `${d.redemptions_count}${d.max_redemptions ? ` of ${d.max_redemptions}` : ""}`],
              ["Ends", d.ends_at ? day(d.ends_at) : "never"],
            ]}
          />
          {mayWrite ? (
            <>
              <section aria-labelledby="edit-discount-h">
                <h2 id="edit-discount-h">Change it</h2>
                <EditDiscount discount={d} onSaved={setSaved} />
              </section>
              <DeleteButton path={`/discounts/${d.id}`} what="the discount" hint="New checkouts can no longer use it; those that already have it keep it." back="/discounts" />
            </>
          ) : (
            <ReadOnly what="change discounts" />
          )}
        </>
      )}
    </Layout>
  );
}
