// The seller's side of the web app: signed out, the way in; signed in without an organization, the form that
// creates one; otherwise the page the path names, in the shared layout, on the organization and side the address
// (or the last visit) chose. Each page is a fresh load (plain links), so the state is the address and nothing else.
import { lazy, Suspense, useEffect, useState, type ReactNode } from "react";
import { auth, getSession, signOut, type Session } from "../api.js";
import { Page, Status } from "../ui.js";
import { whoami } from "./api.js";
import { SellerContext, type Organization, type Seller } from "./context.js";
import { CreateOrganization } from "./CreateOrganization.js";
import { Layout } from "./Layout.js";
import { Toasts } from "./Toasts.js";
import { currentMode, params, rememberMode, setParams } from "./url.js";
import { routeOf } from "./routes.js";
import "./seller.css";
import "./shell.css";

const Dashboard = lazy(() => import("./pages/Dashboard.js").then((m) => ({ default: m.Dashboard })));

function SignedOut() {
  return (
    <Page title="till">
      <p className="lead">Sell digital products from your own server.</p>
      <div className="actions">
        <a className="button primary" href="/sign-in">
          Sign in
        </a>
        <a className="button" href="/sign-in?mode=sign-up">
          Create an account
        </a>
      </div>
    </Page>
  );
}

function NoOrganization({ session }: { session: Session }) {
  return (
    <Page title="Your organizations" className="home">
      <p>
        Signed in as <strong>{session.user.name || session.user.email}</strong> ({session.user.email}).{" "}
        <button type="button" className="link" onClick={() => void signOut().then(() => window.location.assign("/"))}>
          Sign out
        </button>
      </p>
      <p className="lead">
        You have no organization yet. Create one below, or with <code>till orgs create "Acme Inc"</code>.
      </p>
      <CreateOrganization onCreated={(slug) => window.location.assign(`/?org=${encodeURIComponent(slug)}`)} />
    </Page>
  );
}

function SellerPage({ path }: { path: string }): ReactNode {
  const route = routeOf(path);
  if (route.page === "home") {
    return (
      <Layout title="Overview">
        <Suspense fallback={<Status>Loading…</Status>}>
          <Dashboard />
        </Suspense>
      </Layout>
    );
  }
  return route.render();
}

type Loaded = { state: "loading" } | { state: "error"; message: string } | { state: "signed-out" } | { state: "no-org"; session: Session } | { state: "ready"; seller: Seller };

async function load(): Promise<Loaded> {
  const s = await getSession();
  if (!s.ok) return { state: "error", message: s.error.message };
  if (!s.data) return { state: "signed-out" };
  const orgs = await auth.get<Organization[]>("/organization/list");
  if (!orgs.ok) return { state: "error", message: orgs.error.message };
  if (orgs.data.length === 0) return { state: "no-org", session: s.data };
  const asked = params().get("org");
  const organization = orgs.data.find((o) => o.slug === asked || o.id === asked) ?? orgs.data[0]!;
  const mode = currentMode();
  rememberMode(mode);
  // the address always names what is shown, so it can be shared as it is
  setParams({ org: organization.slug, mode });
  const sandbox = mode === "sandbox";
  const who = await whoami(organization.id, sandbox);
  if (!who.ok) return { state: "error", message: who.error.message };
  const seller: Seller = {
    user: s.data.user,
    organizations: orgs.data,
    organization,
    mode,
    // the sandbox is its own organization (the live one's twin): the side's calls name it
    scope: { organizationId: who.data.organization_id ?? organization.id, sandbox },
    who: who.data,
  };
  return { state: "ready", seller };
}

export function SellerApp({ path }: { path: string }) {
  const [loaded, setLoaded] = useState<Loaded>({ state: "loading" });
  useEffect(() => {
    void load().then(setLoaded);
  }, []);
  if (loaded.state === "loading") return <Status>Loading…</Status>;
  if (loaded.state === "error") return <Status tone="error">{loaded.message}</Status>;
  if (loaded.state === "signed-out") return path === "/" ? <SignedOut /> : <RedirectToSignIn />;
  if (loaded.state === "no-org") return <NoOrganization session={loaded.session} />;
  return (
    <SellerContext.Provider value={loaded.seller}>
      <Toasts>
        <SellerPage path={path} />
      </Toasts>
    </SellerContext.Provider>
  );
}

function RedirectToSignIn() {
  useEffect(() => {
    const back = `${window.location.pathname}${window.location.search}`;
    window.location.replace(`/sign-in?callbackURL=${encodeURIComponent(back)}`);
  }, []);
  return <Status>Sign in to see this page…</Status>;
}
