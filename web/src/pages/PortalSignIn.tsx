// Signing in to the portal by emailed code: ?organization={slug} (the link of the sign-in code email) asks for
// the customer's email, has a one-time code mailed to it and trades the code for a session.
import { useEffect, useState, type FormEvent } from "react";
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
        setMessage({ tone: "error", text: r.error.status === 404 ? "This seller was not found. Check the link in your email." : r.error.message });
      }
    });
  }, [slug]);

  async function onRequest(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (!org) return;
    const address = String(new FormData(e.currentTarget).get("email") ?? "").trim();
    setBusy(true);
    setMessage({ tone: "info", text: "Sending a code…" });
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
    setMessage({ tone: "info", text: "Checking the code…" });
    const r = await portalApi.authenticate(code);
    setBusy(false);
    if (r.ok) return onSignedIn(r.data.token);
    setMessage({ tone: "error", text: "That code did not work." });
    setCodeError(r.error.status === 401 ? "This code is wrong, used already or expired. Check it, or ask for a new one." : (r.error.fields.code ?? r.error.message));
  }

  const title = org ? `Your purchases from ${org.name}` : "Your purchases";
  if (email === null) {
    return (
      <Page title={title} className="portal" brand={org?.name}>
        <p className="lead">Enter the email address you bought with. We will send you a code that opens your purchases.</p>
        {/* keyed: the code form is a new form, not this one reused (its field kept the email typed here) */}
        <form key="email" onSubmit={(e) => void onRequest(e)} aria-label="Ask for a sign-in code">
          <Field label="Email" name="email" type="email" autoComplete="email" required maxLength={320} />
          <div className="actions">
            <button type="submit" className="primary" disabled={busy || !org}>
              Email me a code
            </button>
          </div>
        </form>
        <Status tone={message?.tone}>{message?.text}</Status>
      </Page>
    );
  }
  return (
    <Page title="Enter your code" className="portal" brand={org?.name}>
      <p className="lead">
        If <strong>{email}</strong> bought from {org?.name ?? "this seller"}, a code is on its way there. It works once, for 30 minutes.
      </p>
      <form key="code" onSubmit={(e) => void onCode(e)} aria-label="Enter the code">
        <Field label="Code" name="code" autoComplete="one-time-code" autoCapitalize="characters" spellCheck={false} required maxLength={64} error={codeError} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Open my purchases
          </button>
          <button type="button" disabled={busy}
            onClick={() => {
              setEmail(null);
              setMessage(undefined);
              setCodeError(undefined);
            }}
          >
            Use another email
          </button>
        </div>
      </form>
      <Status tone={message?.tone}>{message?.text}</Status>
    </Page>
  );
}
