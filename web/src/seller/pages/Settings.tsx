// /settings: the organization's (this side's) settings — the legal details printed on invoices (warned about
// while the address or tax id is missing), the payment processor's status, tax registrations, dunning and the
// customer emails. Read with GET /v1/organizations/{id}, changed with PATCH; a role that may not change the
// organization reads them only.
import { useState } from "react";
import { CreateOrganization } from "../CreateOrganization.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { day, Facts, Loading } from "../parts.js";
import { href } from "../url.js";
import { CustomerEmails, Dunning, LegalDetails, type OrgSettings } from "./SettingsForms.js";

interface StripeStatus {
  connected: boolean;
  account_id?: string;
  livemode?: boolean;
  secret_key?: string;
  last_event?: { type: string; received_at: string } | null;
  connected_at?: string;
}

function PaymentProcessor() {
  const { scope } = useSeller();
  const status = useLoad(() => v1<StripeStatus>(scope, "GET", "/stripe/connection"), "stripe");
  const s = status.data;
  return (
    <section aria-labelledby="processor-h">
      <h2 id="processor-h">Payment processor</h2>
      <Loading loading={status.loading} error={status.error} />
      {s &&
        (s.connected ? (
          <Facts
            items={[
              ["Stripe account", s.account_id ?? "—"],
              ["Mode", s.livemode ? "live" : "test"],
              ["Secret key", s.secret_key ?? "—"],
              ["Connected", day(s.connected_at)],
              ["Last event", s.last_event ? `${s.last_event.type}, ${day(s.last_event.received_at)}` : "none yet"],
            ]}
          />
        ) : (
          <p>
            No Stripe account is connected on this side: checkouts use till's built-in test processor. Connect one with <code>till stripe connect</code>.
          </p>
        ))}
    </section>
  );
}

function TaxRegistrations({ org }: { org: OrgSettings }) {
  const regs = org.tax_settings?.registrations ?? [];
  return (
    <section aria-labelledby="tax-h">
      <h2 id="tax-h">Tax registrations</h2>
      {regs.length === 0 ? (
        <p className="hint">No tax registrations: no tax is charged. Add them with <code>till tax register</code>.</p>
      ) : (
        <ul>
          {regs.map((r) => (
            <li key={`${r.country}-${r.state ?? ""}`}>
              {r.country}
              {r.state ? `-${r.state}` : ""}
            </li>
          ))}
        </ul>
      )}
      <p className="hint">Prices {org.tax_settings?.prices_include_tax ? "include" : "exclude"} tax.</p>
    </section>
  );
}

export function Settings() {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("organizations");
  // on the sandbox side, the twin organization's own id
  const id = scope.organizationId;
  const loaded = useLoad(() => v1<OrgSettings>(scope, "GET", `/organizations/${id}`), id);
  const [saved, setSaved] = useState<OrgSettings | null>(null);
  const org = saved ?? loaded.data;
  return (
    <Layout title="Settings">
      <Loading loading={loaded.loading} error={loaded.error} />
      {org && (
        <>
          <LegalDetails org={org} mayWrite={mayWrite} onSaved={setSaved} />
          <PaymentProcessor />
          <TaxRegistrations org={org} />
          <Dunning org={org} mayWrite={mayWrite} onSaved={setSaved} />
          <CustomerEmails org={org} mayWrite={mayWrite} onSaved={setSaved} />
        </>
      )}
      <CreateOrganization onCreated={(slug) => window.location.assign(href("/", {}, { org: slug, mode: "live" }))} />
    </Layout>
  );
}
