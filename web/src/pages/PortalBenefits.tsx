// The customer's benefits in the portal: where each grant stands and how it was delivered, a license key whole
// (a Copy button, its limits and activations), a custom benefit's note, a meter credit's terms and a benefit's files
// to download.
import { useId, useRef, useState } from "react";
import type { Downloadable, LicenseKey, PortalGrant } from "../portal-api.js";
import { t } from "../i18n/intl.js";
import { Status } from "../ui.js";
import { GrantDelivery, isDelivered } from "./PortalAccounts.js";
import { CreditTerms } from "./PortalCredits.js";
import { formatDate, ListSection, statusText, type Message } from "./PortalCommon.js";


export function Benefits({ grants, keys, files }: { grants: PortalGrant[]; keys: Map<string, LicenseKey>; files: Map<string, Downloadable[]> }) {
  const [message, setMessage] = useState<Message | undefined>();
  return (
    <ListSection
      id="benefits"
      title={t("benefits.title")}
      empty={t("benefits.empty")}
      items={grants}
      item={(g) => {
        const keyId = typeof g.properties.license_key_id === "string" ? g.properties.license_key_id : null;
        const key = keyId ? keys.get(keyId) : undefined;
        const note = g.benefit.type === "custom" && typeof g.benefit.properties.note === "string" ? g.benefit.properties.note : null;
        return (
          <li key={g.id} className="item">
            <h3>{g.benefit.description}</h3>
            {g.is_revoked ? (
              <p className="empty">{t("benefits.revoked")}</p>
            ) : !g.is_granted && !isDelivered(g.benefit.type) ? (
              <p className="empty">{t("benefits.settingUp")}</p>
            ) : null}
            <GrantDelivery grant={g} />
            <CreditTerms grant={g} />
            {key && <LicenseKeyView licenseKey={key} say={setMessage} />}
            {note && g.is_granted && <p className="note">{note}</p>}
            {g.is_granted && (files.get(g.benefit_id) ?? []).length > 0 && (
              <ul className="downloads" aria-label={t("benefits.files", { benefit: g.benefit.description })}>
                {(files.get(g.benefit_id) ?? []).map((d) => (
                  <li key={d.id}>
                    <a href={d.file.download.url} download={d.file.name}>
                      {t("benefits.download", { file: d.file.name })}
                    </a>{" "}
                    <span className="hint">({d.file.size_readable})</span>
                  </li>
                ))}
              </ul>
            )}
          </li>
        );
      }}
    >
      <Status tone={message?.tone}>{message?.text}</Status>
    </ListSection>
  );
}

function LicenseKeyView({ licenseKey: k, say }: { licenseKey: LicenseKey; say: (m: Message) => void }) {
  const keyId = useId();
  const codeRef = useRef<HTMLElement>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(k.key);
      say({ tone: "success", text: t("key.copied") });
    } catch {
      // no clipboard (an insecure origin, or refused): select the key for the customer to copy
      const range = document.createRange();
      if (codeRef.current) range.selectNodeContents(codeRef.current);
      window.getSelection()?.removeAllRanges();
      window.getSelection()?.addRange(range);
      say({ tone: "error", text: t("key.copyFailed") });
    }
  }
  const activations = k.activations?.length ?? 0;
  return (
    <>
      <p className="license-key">
        <span id={keyId} className="visually-hidden">
          {t("key.label")}
        </span>
        <code ref={codeRef} aria-labelledby={keyId} data-testid="license-key">
          {k.key}
        </code>
        <button type="button" onClick={() => void copy()} aria-describedby={keyId}>
          {t("key.copy")}
        </button>
      </p>
      <dl className="facts">
        <dt>{t("facts.status")}</dt>
        <dd>{statusText("key.status", k.status)}</dd>
        <dt>{t("key.expires")}</dt>
        <dd>{k.expires_at ? formatDate(k.expires_at) : t("key.never")}</dd>
        <dt>{t("key.activations")}</dt>
        <dd>{k.limit_activations ? t("key.activationsOf", { used: activations, limit: k.limit_activations }) : t("key.activationsNoLimit", { used: activations })}</dd>
        {k.limit_usage !== null && (
          <>
            <dt>{t("key.usage")}</dt>
            <dd>{t("key.usageOf", { used: k.usage, limit: k.limit_usage })}</dd>
          </>
        )}
      </dl>
      {k.activations && k.activations.length > 0 && (
        <>
          <h4>{t("key.activatedOn")}</h4>
          <ul className="activations">
            {k.activations.map((a) => (
              <li key={a.id}>{a.label}</li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
