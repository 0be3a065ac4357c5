// /sign-in: sign in with email or username and password, create an account, or continue with a configured
// social provider. `?callbackURL=/path` (same site only) is where the user goes afterwards.
import { useEffect, useState, type FormEvent } from "react";
import { auth, getProviders, getSession, signOut, type Providers, type Session } from "../api.js";
import { safeCallbackURL } from "../callback.js";
import { Field, Page, Status, type Tone } from "../ui.js";

type Mode = "sign-in" | "sign-up";

interface Message {
  tone: Tone;
  text: string;
}

const field = (form: FormData, name: string) => String(form.get(name) ?? "").trim();

/** One call to the auth server: on success whether to go on to the callback, on failure the server's message. */
type Call = () => Promise<{ ok: true; next: boolean } | { ok: false; text: string }>;

/** Signs in with an email (it has an @) or a username, and the password. */
const signInCall =
  (form: FormData): Call =>
  async () => {
    const identifier = field(form, "identifier");
    const password = String(form.get("password") ?? "");
    const r = identifier.includes("@")
      ? await auth.post("/sign-in/email", { email: identifier, password })
      : await auth.post("/sign-in/username", { username: identifier, password });
    return r.ok ? { ok: true, next: true } : { ok: false, text: r.error.message };
  };

/** Creates the account; no token back means the server wants the email verified before the first sign-in. */
const signUpCall =
  (form: FormData): Call =>
  async () => {
    const username = field(form, "username");
    const body = {
      name: field(form, "name"),
      email: field(form, "email"),
      password: String(form.get("password") ?? ""),
      ...(username ? { username } : {}),
    };
    const r = await auth.post<{ token: string | null }>("/sign-up/email", body);
    return r.ok ? { ok: true, next: Boolean(r.data?.token) } : { ok: false, text: r.error.message };
  };

function SignInForm({ busy, onSubmit }: { busy: boolean; onSubmit: (e: FormEvent<HTMLFormElement>) => void }) {
  return (
    <form onSubmit={onSubmit} aria-label="Sign in">
      <Field label="Email or username" name="identifier" autoComplete="username" required autoFocus />
      <Field label="Password" name="password" type="password" autoComplete="current-password" required />
      <button type="submit" className="primary" disabled={busy}>
        Sign in
      </button>
      <p className="forgot">
        <a href="/reset-password">Forgot your password?</a>
      </p>
    </form>
  );
}

function SignUpForm({ busy, onSubmit }: { busy: boolean; onSubmit: (e: FormEvent<HTMLFormElement>) => void }) {
  return (
    <form onSubmit={onSubmit} aria-label="Create an account">
      <Field label="Name" name="name" autoComplete="name" required autoFocus />
      <Field label="Email" name="email" type="email" autoComplete="email" required />
      <Field
        label="Username (optional)"
        name="username"
        autoComplete="username"
        hint="Lets you sign in with a name instead of your email."
      />
      <Field
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        hint="At least 8 characters."
      />
      <button type="submit" className="primary" disabled={busy}>
        Create account
      </button>
    </form>
  );
}

/** The configured social providers, one button each. */
function SocialSignIn({ social, busy, onSocial }: { social: Providers["social"]; busy: boolean; onSocial: (id: string) => void }) {
  if (social.length === 0) return null;
  return (
    <section aria-label="Other ways to sign in" className="social">
      <p className="divider">
        <span>or</span>
      </p>
      {social.map((p) => (
        <button key={p.id} type="button" onClick={() => onSocial(p.id)} disabled={busy}>
          Continue with {p.name}
        </button>
      ))}
    </section>
  );
}

export function SignInPage() {
  const params = new URLSearchParams(window.location.search);
  const callbackURL = safeCallbackURL(params.get("callbackURL"));
  const [mode, setMode] = useState<Mode>(params.get("mode") === "sign-up" ? "sign-up" : "sign-in");
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [providers, setProviders] = useState<Providers | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message | undefined>(undefined);

  useEffect(() => {
    void getSession().then((r) => setSession(r.ok ? r.data : null));
    void getProviders().then((r) => r.ok && setProviders(r.data));
  }, []);

  function switchMode(next: Mode) {
    setMode(next);
    setMessage(undefined);
    const url = new URL(window.location.href);
    if (next === "sign-up") url.searchParams.set("mode", "sign-up");
    else url.searchParams.delete("mode");
    window.history.replaceState(null, "", url);
  }

  /** Runs one call; on success goes on to the callback, on failure shows the server's message. */
  async function run(call: Call) {
    setBusy(true);
    setMessage({ tone: "info", text: mode === "sign-up" ? "Creating your account…" : "Signing in…" });
    const result = await call();
    if (!result.ok) {
      setBusy(false);
      setMessage({ tone: "error", text: result.text });
      return;
    }
    if (!result.next) {
      setBusy(false);
      setMessage({
        tone: "success",
        text: "Account created. Check your email for the verification link, then sign in.",
      });
      return;
    }
    setMessage({ tone: "success", text: "Signed in. Taking you on…" });
    window.location.assign(callbackURL);
  }

  /** A form's submit runs the call `make` builds from the form's fields. */
  const submit = (make: (form: FormData) => Call) => (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    void run(make(new FormData(e.currentTarget)));
  };

  async function onSocial(provider: string) {
    setBusy(true);
    setMessage({ tone: "info", text: "Taking you to the provider…" });
    const r = await auth.post<{ url?: string }>("/sign-in/social", { provider, callbackURL });
    if (r.ok && r.data?.url) {
      window.location.assign(r.data.url);
      return;
    }
    setBusy(false);
    setMessage({ tone: "error", text: r.ok ? "The provider did not answer with a sign-in address." : r.error.message });
  }

  async function onSignOut() {
    setBusy(true);
    const r = await signOut();
    setBusy(false);
    if (r.ok) {
      setSession(null);
      setMessage({ tone: "success", text: "Signed out." });
    } else setMessage({ tone: "error", text: r.error.message });
  }

  if (session === undefined) {
    return (
      <Page title="Sign in">
        <Status>Loading…</Status>
      </Page>
    );
  }

  if (session) {
    return (
      <Page title="Sign in">
        <p>
          You are signed in as <strong>{session.user.name || session.user.email}</strong> ({session.user.email}).
        </p>
        <div className="actions">
          <a className="button primary" href={callbackURL}>
            Continue
          </a>
          <button type="button" onClick={onSignOut} disabled={busy}>
            Sign out
          </button>
        </div>
        <Status tone={message?.tone}>{message?.text}</Status>
      </Page>
    );
  }

  const forDevice = callbackURL.startsWith("/device");
  return (
    <Page title={mode === "sign-up" ? "Create an account" : "Sign in"}>
      {forDevice && <p className="lead">Sign in to approve the sign-in request from your device.</p>}
      {mode === "sign-in" ? <SignInForm busy={busy} onSubmit={submit(signInCall)} /> : <SignUpForm busy={busy} onSubmit={submit(signUpCall)} />}
      <Status tone={message?.tone}>{message?.text}</Status>
      <SocialSignIn social={providers?.social ?? []} busy={busy} onSocial={(id) => void onSocial(id)} />
      <p className="switch">
        {mode === "sign-in" ? "New to till? " : "Already have an account? "}
        <button type="button" className="link" onClick={() => switchMode(mode === "sign-in" ? "sign-up" : "sign-in")}>
          {mode === "sign-in" ? "Create an account" : "Sign in"}
        </button>
      </p>
    </Page>
  );
}
