// /settings: the organization's (this side's) settings — its status on the way to live payments with the next
// step (SettingsStatus.tsx), the legal details printed on invoices (warned about
// while the address or tax id is missing), the payment processor's status, tax registrations, dunning and the
// customer emails. Read with GET /v1/organizations/{id}, changed with PATCH; a role that may not change the
// organization reads them only.
import { useState } from "react";
import { CreateOrganization } from "../CreateOrganization.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { Loading } from "../parts.js";
import { PaymentProcessor } from "./SettingsProcessor.js";
import { OrganizationStatus } from "./SettingsStatus.js";
import { AdminLink } from "./AdminOrganizations.js";
import { TaxRegistrations } from "./SettingsTax.js";
import { href } from "../url.js";
import { CustomerEmails, CustomerLanguage, Dunning, LegalDetails, type OrgSettings } from "./SettingsForms.js";

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
          <AdminLink />
          <OrganizationStatus organizationId={id} mayWrite={mayWrite} />
          <LegalDetails org={org} mayWrite={mayWrite} onSaved={setSaved} />
          <PaymentProcessor mayWrite={mayWrite} />
          <TaxRegistrations org={org} mayWrite={mayWrite} onSaved={setSaved} />
          <Dunning org={org} mayWrite={mayWrite} onSaved={setSaved} />
          <CustomerEmails org={org} mayWrite={mayWrite} onSaved={setSaved} />
          <CustomerLanguage org={org} mayWrite={mayWrite} onSaved={setSaved} />
        </>
      )}
      <CreateOrganization onCreated={(slug) => window.location.assign(href("/", {}, { org: slug, mode: "live" }))} />
    </Layout>
  );
}
