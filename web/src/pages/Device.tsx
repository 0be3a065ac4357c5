// /device (the device flow's verification_uri): the signed-in user claims the code their terminal shows
// (GET /api/auth/device binds it to them), sees which client asks for what, and approves or denies it.
import { useEffect, useState, type FormEvent } from "react";
import { auth, getSession, signOut, type ApiError, type SessionUser } from "../api.js";
import { signInURL } from "../callback.js";
import { DEVICE_ERRORS } from "../device-errors.js";
import { Field, Page, Status, useFocusHeading } from "../ui.js";

interface Verification {
  user_code: string;
  status: "pending" | "approved" | "denied";
  /** Present only for the user the code is bound to. */
  client_id?: string;
  /** The registered client's name (TILL_DEVICE_CLIENTS; the till CLI's), beside client_id. */
  client_name?: string | null;
  scope?: string | null;
}

type State =
  | { kind: "enter" }
  | { kind: "loading" }
  | { kind: "sign-in" }
  | { kind: "review"; code: string; clientId: string; clientName: string | null | undefined; scope: string | null | undefined }
  | { kind: "approved" }
  | { kind: "denied" }
  | { kind: "unknown"; code: string }
  | { kind: "expired" }
  | { kind: "used"; status: "approved" | "denied" | undefined }
  | { kind: "other-account" }
  | { kind: "error"; message: string };

const TITLES: Record<State["kind"], string> = {
  enter: "Connect a device",
  loading: "Connect a device",
  "sign-in": "Sign in to continue",
  review: "Approve this device?",
  approved: "Device approved",
  denied: "Request denied",
  unknown: "Code not found",
  expired: "Code expired",
  used: "Code already used",
  "other-account": "Code claimed by another account",
  error: "Something went wrong",
};

/** ABCDEFGH → ABCD-EFGH, as terminals usually show it; other shapes as they are. */
export const formatCode = (code: string) => (/^[A-Z0-9]{8}$/i.test(code) ? `${code.slice(0, 4)}-${code.slice(4)}` : code);

const devicePath = (code: string) => `/device?user_code=${encodeURIComponent(code)}`;

function stateOfError(error: ApiError, code: string): State {
  if (error.status === 401) return { kind: "sign-in" };
  if (error.code === "expired_token") return { kind: "expired" };
  if (error.message === DEVICE_ERRORS.INVALID_USER_CODE) return { kind: "unknown", code };
  if (error.message === DEVICE_ERRORS.DEVICE_CODE_ALREADY_PROCESSED) return { kind: "used", status: undefined };
  if (error.code === "access_denied") return { kind: "other-account" };
  return { kind: "error", message: error.message };
}

function goSignIn(code: string) {
  window.location.replace(signInURL(devicePath(code)));
}

type ReviewState = Extract<State, { kind: "review" }>;

/** The code box: the start, and again after an unknown code (holding it for correction). */
function CodeForm({ state, onSubmit }: { state: State; onSubmit: (e: FormEvent<HTMLFormElement>) => void }) {
  return (
    <form onSubmit={onSubmit} aria-label="Enter your code">
      <Field
        label="Code"
        name="user_code"
        defaultValue={state.kind === "unknown" ? state.code : ""}
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        required
        autoFocus
        hint="The code your terminal shows, for example WDJB-MJHT."
      />
      <button type="submit" className="primary">
        Continue
      </button>
    </form>
  );
}

/** Which client asks for what, with the approve and deny buttons. */
function Review({ state, busy, decide }: { state: ReviewState; busy: boolean; decide: (action: "approve" | "deny") => Promise<void> }) {
  return (
    <>
      <p className="lead">A device is asking to sign in to your account. Approve it only if you started this and the code matches your terminal.</p>
      <dl className="facts">
        <dt>Code</dt>
        <dd>
          <code className="user-code">{formatCode(state.code)}</code>
        </dd>
        <dt>Client</dt>
        <dd>
          {state.clientName ? <strong>{state.clientName}</strong> : null} <code>{state.clientId}</code>
        </dd>
        <dt>Access</dt>
        <dd>
          {/* a device-flow session is the account's session: no scope narrows it, so say what it can do */}
          Everything you can do: {state.clientName ?? "the device"} will act as you in each of your organizations, with your role
          there, until it signs out.
          {state.scope ? (
            <>
              {" "}
              Requested scope: <code>{state.scope}</code>.
            </>
          ) : null}
        </dd>
      </dl>
      <div className="actions">
        <button type="button" className="primary" onClick={() => void decide("approve")} disabled={busy}>
          Approve
        </button>
        <button type="button" className="danger" onClick={() => void decide("deny")} disabled={busy}>
          Deny
        </button>
      </div>
      <Status>{busy ? "Sending your answer…" : null}</Status>
    </>
  );
}

interface BodyProps {
  state: State;
  code: string;
  busy: boolean;
  onEnter: (e: FormEvent<HTMLFormElement>) => void;
  decide: (action: "approve" | "deny") => Promise<void>;
}

/** The page's content for each state. */
function DeviceBody({ state, code, busy, onEnter, decide }: BodyProps) {
  switch (state.kind) {
    case "enter":
      return (
        <>
          <p className="lead">Enter the code shown in your terminal to sign it in to your till account.</p>
          <CodeForm state={state} onSubmit={onEnter} />
        </>
      );
    case "loading":
      return <Status>Checking the code…</Status>;
    case "sign-in":
      return (
        <Status>
          <a href={signInURL(devicePath(code))}>Sign in</a> to approve this device.
        </Status>
      );
    case "review":
      return <Review state={state} busy={busy} decide={decide} />;
    case "approved":
      return <Status tone="success">Device approved — you can return to your terminal.</Status>;
    case "denied":
      // the person's own answer, but a refusal: shown as a denial, never in the success colours
      return <Status tone="denied">Request denied — the device was not signed in. You can close this page.</Status>;
    case "unknown":
      return (
        <>
          <Status tone="error">
            We could not find the code {formatCode(state.code)}. Check it against your terminal: it may be mistyped or already used.
          </Status>
          <CodeForm state={state} onSubmit={onEnter} />
        </>
      );
    case "expired":
      return <Status tone="error">This code has expired. Start the sign-in again in your terminal to get a new code.</Status>;
    case "used":
      return (
        <Status tone="error">
          This code has already been {state.status ?? "used"}. Start the sign-in again in your terminal if you need a new code.
        </Status>
      );
    case "other-account":
      return (
        <Status tone="error">
          This code is being approved by another account. Sign in with that account, or start again in your terminal.
        </Status>
      );
    case "error":
      return <Status tone="error">{state.message}</Status>;
  }
}

export function DevicePage() {
  const initial = new URLSearchParams(window.location.search).get("user_code")?.trim() ?? "";
  const [code, setCode] = useState(initial);
  const [state, setState] = useState<State>(initial ? { kind: "loading" } : { kind: "enter" });
  const [user, setUser] = useState<SessionUser | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  useFocusHeading(state.kind);

  async function check(userCode: string) {
    setState({ kind: "loading" });
    const session = await getSession();
    if (!session.ok) return setState({ kind: "error", message: session.error.message });
    if (!session.data) {
      setState({ kind: "sign-in" });
      return goSignIn(userCode);
    }
    setUser(session.data.user);
    // this call also claims a pending, unclaimed code for the signed-in user (better-auth's device plugin)
    const r = await auth.get<Verification>(`/device?user_code=${encodeURIComponent(userCode)}`);
    if (!r.ok) {
      const next = stateOfError(r.error, userCode);
      if (next.kind === "sign-in") goSignIn(userCode);
      return setState(next);
    }
    const v = r.data;
    if (v.status !== "pending") return setState({ kind: "used", status: v.status });
    if (v.client_id === undefined) return setState({ kind: "other-account" });
    setState({ kind: "review", code: userCode, clientId: v.client_id, clientName: v.client_name, scope: v.scope });
  }

  useEffect(() => {
    // once: check the code the page was opened with, or just show who would approve a typed one
    if (initial) void check(initial);
    else void getSession().then((r) => r.ok && r.data && setUser(r.data.user));
  }, []);

  function onEnter(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const entered = String(new FormData(e.currentTarget).get("user_code") ?? "").trim();
    if (!entered) return;
    setCode(entered);
    window.history.replaceState(null, "", devicePath(entered));
    void check(entered);
  }

  async function decide(action: "approve" | "deny") {
    setBusy(true);
    const r = await auth.post(`/device/${action}`, { userCode: code });
    setBusy(false);
    if (r.ok) return setState({ kind: action === "approve" ? "approved" : "denied" });
    const next = stateOfError(r.error, code);
    if (next.kind === "sign-in") goSignIn(code);
    setState(next);
  }

  async function onSignOut() {
    setBusy(true);
    await signOut();
    goSignIn(code);
  }

  return (
    <Page title={TITLES[state.kind]}>
      <DeviceBody state={state} code={code} busy={busy} onEnter={onEnter} decide={decide} />
      {user && state.kind !== "loading" && state.kind !== "sign-in" && (
        <p className="who">
          Signed in as <strong>{user.email}</strong>.{" "}
          <button type="button" className="link" onClick={() => void onSignOut()} disabled={busy}>
            Use another account
          </button>
        </p>
      )}
    </Page>
  );
}
