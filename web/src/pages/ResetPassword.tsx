// /reset-password: forgotten passwords. Without a token it asks for the account's email and has a reset link
// mailed (POST /api/auth/request-password-reset, which answers the same whether or not the address has an
// account). The mailed link goes through GET /api/auth/reset-password/{token}, which lands back here with
// ?token= (a new password is asked for, twice) or ?error=INVALID_TOKEN (the link was wrong, used or expired:
// a new one can be asked for at once).
import { useState, type FormEvent } from "react";
import { auth } from "../api.js";
import { Field, Page, Status, useFocusHeading, type Tone } from "../ui.js";

type State =
  | { kind: "request" }
  | { kind: "sent"; email: string; message: string }
  | { kind: "choose"; token: string }
  | { kind: "done" };

const TITLES: Record<State["kind"], string> = {
  request: "Reset your password",
  sent: "Check your email",
  choose: "Choose a new password",
  done: "Password changed",
};

const INVALID_LINK = "This reset link is invalid, used already or expired. Ask for a new one below.";

/** The page this one asks the server to send the mailed link back to. */
export const RESET_PAGE = "/reset-password";

function initialState(params: URLSearchParams): State {
  const token = params.get("token");
  return token ? { kind: "choose", token } : { kind: "request" };
}

interface Message {
  tone: Tone;
  text: string;
}

export function ResetPasswordPage() {
  const params = new URLSearchParams(window.location.search);
  const [state, setState] = useState<State>(() => initialState(params));
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message | undefined>(() =>
    !params.get("token") && params.get("error") ? { tone: "error", text: INVALID_LINK } : undefined,
  );
  useFocusHeading(state.kind);

  function go(next: State, nextMessage?: Message) {
    setBusy(false);
    setState(next);
    setMessage(nextMessage);
  }

  async function onRequest(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const email = String(new FormData(e.currentTarget).get("email") ?? "").trim();
    setBusy(true);
    setMessage({ tone: "info", text: "Sending the reset link…" });
    const r = await auth.post<{ message?: string }>("/request-password-reset", { email, redirectTo: RESET_PAGE });
    if (!r.ok) return go(state, { tone: "error", text: r.error.message });
    const text = r.data?.message ?? "If this email exists in our system, check your email for the reset link";
    go({ kind: "sent", email, message: text });
  }

  async function onChoose(e: FormEvent<HTMLFormElement>, token: string) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const newPassword = String(form.get("password") ?? "");
    if (newPassword !== String(form.get("confirm") ?? "")) {
      setMessage({ tone: "error", text: "The two passwords are not the same. Type the new password twice." });
      return;
    }
    setBusy(true);
    setMessage({ tone: "info", text: "Changing your password…" });
    const r = await auth.post("/reset-password", { newPassword, token });
    if (r.ok) {
      window.history.replaceState(null, "", RESET_PAGE); // the token is spent: keep it out of the history
      return go({ kind: "done" });
    }
    if (r.error.code === "INVALID_TOKEN") {
      window.history.replaceState(null, "", RESET_PAGE);
      return go({ kind: "request" }, { tone: "error", text: INVALID_LINK });
    }
    go(state, { tone: "error", text: r.error.message });
  }

  const title = TITLES[state.kind];
  switch (state.kind) {
    case "request":
      return (
        <Page title={title}>
          <p className="lead">Enter the email address of your account and we will send you a link to choose a new password.</p>
          <form onSubmit={(e) => void onRequest(e)} aria-label="Ask for a reset link">
            <Field label="Email" name="email" type="email" autoComplete="email" required autoFocus />
            <button type="submit" className="primary" disabled={busy}>
              Send reset link
            </button>
          </form>
          <Status tone={message?.tone}>{message?.text}</Status>
          <p className="switch">
            Remembered it? <a href="/sign-in">Sign in</a>
          </p>
        </Page>
      );
    case "sent":
      return (
        <Page title={title}>
          <Status tone="success">{state.message}.</Status>
          <p>
            Address: <strong>{state.email}</strong>. The link works once, within an hour.
          </p>
          <p className="switch">
            No email? Look in your spam folder, or{" "}
            <button type="button" className="link" onClick={() => go({ kind: "request" })}>
              ask again
            </button>
            .
          </p>
        </Page>
      );
    case "choose":
      return (
        <Page title={title}>
          <form onSubmit={(e) => void onChoose(e, state.token)} aria-label="Choose a new password">
            <Field
              label="New password"
              name="password"
              type="password"
              autoComplete="new-password"
              required
              autoFocus
              hint="At least 8 characters."
            />
            <Field label="New password again" name="confirm" type="password" autoComplete="new-password" required />
            <button type="submit" className="primary" disabled={busy}>
              Change password
            </button>
          </form>
          <Status tone={message?.tone}>{message?.text}</Status>
        </Page>
      );
    case "done":
      return (
        <Page title={title}>
          <Status tone="success">Your password has been changed.</Status>
          <p>Sign in with the new password. Other devices that were signed in may have been signed out.</p>
          <div className="actions">
            <a className="button primary" href="/sign-in">
              Sign in
            </a>
          </div>
        </Page>
      );
  }
}
