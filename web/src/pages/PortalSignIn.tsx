// Signing in to the portal by emailed code: ?organization={slug} (the link of the sign-in code email) asks for
// the customer's email, has a one-time code mailed to it and trades the code for a session.
import { useEffect, useState, type FormEvent } from "react";
import { t } from "../i18n/intl.js";
import { portalApi } from "../portal-api.js";
import { Field, Page, Status, useFocusHeading } from "../ui.js";
import type { Message } from "./PortalCommon.js";

/** ?organization={slug}: the customer's email, a code mailed to it, and the code traded for a session. */
export function SignIn({ slug, onSignedIn }: { slug: string; onSignedIn: (token: string) => void }) {
  const [org, setOrg] = useState<{ id: string; name: string } | null | undefined>(undefined);
  const [email, setEmail] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message | undefined>();
  const [codeError, setCodeError] = useState<string | undefined>();
  useFocusHeading(email === null ? "email" : "code");

  useEffect(() => {
    void portalApi.organization(slug).then((r) => {
      if (r.ok) setOrg({ id: r.data.organization.id, name: r.data.organization.name });
      else {
        setOrg(null);
        setMessage({ tone: "error", text: r.error.status === 404 ? t("signIn.sellerNotFound") : r.error.message });
      }
    });
  }, [slug]);

  async function onRequest(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (!org) return;
    const address = String(new FormData(e.currentTarget).get("email") ?? "").trim();
    setBusy(true);
    setMessage({ tone: "info", text: t("signIn.sending") });
    const r = await portalApi.requestCode(address, org.id);
    setBusy(false);
    if (!r.ok) return setMessage({ tone: "error", text: r.error.fields.email ?? r.error.message });
    setEmail(address);
    setMessage(undefined);
  }

  async function onCode(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget).get("code") ?? "").trim();
    setBusy(true);
    setCodeError(undefined);
    setMessage({ tone: "info", text: t("signIn.checking") });
    const r = await portalApi.authenticate(code);
    setBusy(false);
    if (r.ok) return onSignedIn(r.data.token);
    setMessage({ tone: "error", text: t("signIn.codeFailed") });
    setCodeError(r.error.status === 401 ? t("signIn.codeWrong") : (r.error.fields.code ?? r.error.message));
  }

  const title = org ? t("signIn.titleFrom", { seller: org.name }) : t("portal.title");
  if (email === null) {
    return (
      <Page title={title} className="portal" brand={org?.name}>
        <p className="lead">{t("signIn.lead")}</p>
        {/* keyed: the code form is a new form, not this one reused (its field kept the email typed here) */}
        <form key="email" onSubmit={(e) => void onRequest(e)} aria-label={t("signIn.askForm")}>
          <Field label={t("signIn.email")} name="email" type="email" autoComplete="email" required maxLength={320} />
          <div className="actions">
            <button type="submit" className="primary" disabled={busy || !org}>
              {t("signIn.send")}
            </button>
          </div>
        </form>
        <Status tone={message?.tone}>{message?.text}</Status>
      </Page>
    );
  }
  return (
    <Page title={t("signIn.codeTitle")} className="portal" brand={org?.name}>
      <p className="lead">
        {t("signIn.codeLead", { email, seller: org?.name ?? t("signIn.thisSeller") })}
      </p>
      <form key="code" onSubmit={(e) => void onCode(e)} aria-label={t("signIn.codeForm")}>
        <Field label={t("signIn.code")} name="code" autoComplete="one-time-code" autoCapitalize="characters" spellCheck={false} required maxLength={64} error={codeError} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {t("signIn.open")}
          </button>
          <button type="button" disabled={busy}
            onClick={() => {
              setEmail(null);
              setMessage(undefined);
              setCodeError(undefined);
            }}
          >
            {t("signIn.another")}
          </button>
        </div>
      </form>
      <Status tone={message?.tone}>{message?.text}</Status>
    </Page>
  );
}
