// /discounts: the side's discounts (code, amount off, how long, redemptions), a form for a new one (a percentage
// or a fixed amount, once / forever / for some months); each opens its page (DiscountDetail) to change or delete it.
import { useState, type FormEvent } from "react";
import { Field, SelectField, Status, type Tone } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { Loading, money, Pager, Table } from "../parts.js";
import { href, pageParam } from "../url.js";
import { toMinor } from "../price-drafts.js";

export interface Discount {
  id: string;
  name: string;
  code: string | null;
  type: "fixed" | "percentage";
  amount?: number;
  currency?: string;
  basis_points?: number;
  duration: string;
  duration_in_months?: number | null;
  redemptions_count: number;
  max_redemptions: number | null;
  ends_at?: string | null;
}

export const off = (d: Discount) => (d.type === "percentage" ? `${(d.basis_points ?? 0) / 100} %` : money(d.amount ?? 0, d.currency ?? "usd"));
export const lasts = (d: Discount) => (d.duration === "repeating" ? `${d.duration_in_months ?? "?"} months` : d.duration);

function CreateDiscount({ onDone }: { onDone: () => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const type = f.get("type") === "fixed" ? "fixed" : "percentage";
    const value = String(f.get("value") ?? "");
    const duration = String(f.get("duration") || "once");
    const body: Record<string, unknown> = { name: String(f.get("name") ?? "").trim(), code: String(f.get("code") ?? "").trim() || null, type, duration };
    if (duration === "repeating") body.duration_in_months = Number(f.get("months") || 1);
    if (type === "percentage") body.basis_points = Math.round(Number(value) * 100);
    else {
      const amount = toMinor(value, "usd");
      if (amount === null) return setSaid({ tone: "error", text: "Write the amount off as a number, e.g. 5.00." });
      Object.assign(body, { amount, currency: "usd" });
    }
    const r = await v1<Discount>(scope, "POST", "/discounts/", { body });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: `Made ${r.data.name}.` });
    onDone();
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label="New discount" className="stack">
      <Field label="Name" name="name" required maxLength={100} />
      <Field label="Code" name="code" optional maxLength={32} hint="What buyers type at checkout; empty makes a discount only links and the API apply." />
      <SelectField label="Kind" name="type" placeholder="Percentage off" options={[{ value: "fixed", label: "Fixed amount off (USD)" }]} />
      <Field label="Percentage or amount" name="value" required inputMode="decimal" hint="e.g. 20 (for 20 %) or 5.00" />
      <SelectField
        label="For subscriptions, it applies"
        name="duration"
        placeholder="Once"
        options={[
          { value: "forever", label: "Forever" },
          { value: "repeating", label: "For some months" },
        ]}
      />
      <Field label="Months (for some months)" name="months" optional inputMode="numeric" />
      <button type="submit" className="primary">
        Make the discount
      </button>
      <Status tone={said?.tone}>{said?.text}</Status>
    </form>
  );
}

export function Discounts() {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("discounts");
  const page = pageParam();
  const list = useLoad(() => v1<ListPage<Discount>>(scope, "GET", "/discounts/", { query: { page, limit: 20 } }), String(page));
  return (
    <Layout title="Discounts">
      <Loading loading={list.loading} error={list.error} />
      {list.data && (
        <>
          <Table
            caption="Discounts"
            rows={list.data.items}
            empty="No discounts yet."
            columns={[
              { label: "Name", cell: (d) => <a href={href(`/discounts/${d.id}`)}>{d.name}</a> },
              { label: "Code", cell: (d) => (d.code ? <code>{d.code}</code> : "—") },
              { label: "Off", cell: off, numeric: true },
              { label: "Applies", cell: lasts },
              { label: "Used", cell: (d) => `${d.redemptions_count}${d.max_redemptions ? ` of ${d.max_redemptions}` : ""}`, numeric: true },
            ]}
          />
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
      {mayWrite && (
        <section aria-labelledby="new-discount-h">
          <h2 id="new-discount-h">New discount</h2>
          <CreateDiscount onDone={list.reload} />
        </section>
      )}
    </Layout>
  );
}
