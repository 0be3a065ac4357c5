// /: who is signed in, and where to go from here.
import { useEffect, useState } from "react";
import { getSession, signOut, type Session } from "../api.js";
import { Page, Status } from "../ui.js";

export function HomePage() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    void getSession().then((r) => (r.ok ? setSession(r.data) : setError(r.error.message)));
  }, []);

  async function onSignOut() {
    const r = await signOut();
    if (r.ok) setSession(null);
    else setError(r.error.message);
  }

  return (
    <Page title="till">
      {session === undefined && !error && <Status>Loading…</Status>}
      {session === null && (
        <>
          <p className="lead">Sell digital products from your own server.</p>
          <div className="actions">
            <a className="button primary" href="/sign-in">
              Sign in
            </a>
            <a className="button" href="/sign-in?mode=sign-up">
              Create an account
            </a>
          </div>
        </>
      )}
      {session && (
        <>
          <p>
            Signed in as <strong>{session.user.name || session.user.email}</strong> ({session.user.email}).
          </p>
          <ul className="links">
            <li>
              <a href="/device">Connect a device (till CLI)</a>
            </li>
            <li>
              <a href="/api/reference">API reference</a>
            </li>
          </ul>
          <button type="button" onClick={() => void onSignOut()}>
            Sign out
          </button>
        </>
      )}
      {error && <Status tone="error">{error}</Status>}
    </Page>
  );
}
