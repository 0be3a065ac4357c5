// /accept-invitation/{id}: the link of an organization's invitation email. The invitee signs in (or creates
// their account) with the invited address, sees who invited them to what, and accepts or declines.
import { useEffect, useState } from "react";
import { auth, getSession, signOut, type ApiError, type SessionUser } from "../api.js";
import { signInURL } from "../callback.js";
import { Page, Status, useFocusHeading } from "../ui.js";

interface Invitation {
  id: string;
  email: string;
  role: string;
  organizationName: string;
  inviterEmail: string;
}

type State =
  | { kind: "loading" }
  | { kind: "review"; invitation: Invitation }
  | { kind: "accepted"; organization: string }
  | { kind: "declined"; organization: string }
  | { kind: "unavailable"; message: string; hint: string }
  | { kind: "error"; message: string };

const TITLES: Record<State["kind"], string> = {
  loading: "Invitation",
  review: "Join the organization?",
  accepted: "Invitation accepted",
  declined: "Invitation declined",
  unavailable: "Invitation not available",
  error: "Something went wrong",
};

const invitationId = () => decodeURIComponent(window.location.pathname.replace(/^\/accept-invitation\/?/, "").replace(/\/+$/, ""));

function stateOfError(error: ApiError): State {
  // its invitee is told an invitation expired (server/auth/spec-answers.ts)
  if (error.code === "INVITATION_EXPIRED") {
    return { kind: "unavailable", message: error.message, hint: "Ask whoever invited you for a new invitation." };
  }
  // better-auth answers 400 INVITATION_NOT_FOUND for an answered or canceled invitation (and anyone else's expired one)
  if (error.code === "INVITATION_NOT_FOUND") {
    const hint = "It may have expired, been answered already, or been canceled. Ask for a new invitation.";
    return { kind: "unavailable", message: error.message, hint };
  }
  if (error.status === 403) {
    return { kind: "unavailable", message: error.message, hint: "Sign in with the address the invitation was sent to." };
  }
  return { kind: "error", message: error.message };
}

export function InvitationPage() {
  const id = invitationId();
  const [state, setState] = useState<State>({ kind: "loading" });
  const [user, setUser] = useState<SessionUser | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  useFocusHeading(state.kind);

  useEffect(() => {
    void (async () => {
      const session = await getSession();
      if (!session.ok) return setState({ kind: "error", message: session.error.message });
      if (!session.data) return window.location.replace(signInURL(window.location.pathname));
      setUser(session.data.user);
      if (!id) return setState({ kind: "unavailable", message: "This link names no invitation.", hint: "Open the link of the invitation email." });
      const r = await auth.get<Invitation>(`/organization/get-invitation?id=${encodeURIComponent(id)}`);
      setState(r.ok ? { kind: "review", invitation: r.data } : stateOfError(r.error));
    })();
  }, [id]);

  async function answer(invitation: Invitation, accept: boolean) {
    setBusy(true);
    const r = await auth.post(`/organization/${accept ? "accept" : "reject"}-invitation`, { invitationId: invitation.id });
    setBusy(false);
    if (!r.ok) return setState(stateOfError(r.error));
    const organization = invitation.organizationName;
    setState(accept ? { kind: "accepted", organization } : { kind: "declined", organization });
  }

  async function onSignOut() {
    setBusy(true);
    await signOut();
    window.location.replace(signInURL(window.location.pathname));
  }

  return (
    <Page title={TITLES[state.kind]}>
      {body()}
      {user && state.kind !== "loading" && (
        <p className="who">
          Signed in as <strong>{user.email}</strong>.{" "}
          <button type="button" className="link" onClick={() => void onSignOut()} disabled={busy}>
            Use another account
          </button>
        </p>
      )}
    </Page>
  );

  function body() {
    switch (state.kind) {
      case "loading":
        return <Status>Loading the invitation…</Status>;
      case "review": {
        const inv = state.invitation;
        return (
          <>
            <p className="lead">
              <strong>{inv.inviterEmail}</strong> invited <strong>{inv.email}</strong> to join{" "}
              <strong>{inv.organizationName}</strong> as <strong>{inv.role}</strong>.
            </p>
            <div className="actions">
              <button type="button" className="primary" onClick={() => void answer(inv, true)} disabled={busy}>
                Accept
              </button>
              <button type="button" onClick={() => void answer(inv, false)} disabled={busy}>
                Decline
              </button>
            </div>
            <Status>{busy ? "Sending your answer…" : null}</Status>
          </>
        );
      }
      case "accepted":
        return <Status tone="success">You are now a member of {state.organization}.</Status>;
      case "declined":
        return <Status tone="success">You declined the invitation to {state.organization}.</Status>;
      case "unavailable":
        return (
          <Status tone="error">
            {state.message.replace(/[.!]+$/, "")}. {state.hint}
          </Status>
        );
      case "error":
        return <Status tone="error">{state.message}</Status>;
    }
  }
}
