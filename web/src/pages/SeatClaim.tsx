// /seats/claim?token=…: the link of a seat invitation email. Shows what the seat is for (the product and the
// seller) and the address it was given to; Claim makes that person a customer of the seller with the
// product's benefits, and opens their customer portal. The token is taken out of the address bar at once.
import { useEffect, useState } from "react";
import { errorOf } from "../checkout-api.js";
import { Page, Status, useFocusHeading } from "../ui.js";

interface ClaimInfo {
  product_name: string;
  product_id: string;
  organization_name: string;
  organization_slug: string;
  customer_email: string;
  can_claim: boolean;
}

interface Claimed {
  seat: { id: string; status: string };
  customer_session_token: string;
}

type State =
  | { kind: "loading" }
  | { kind: "review"; info: ClaimInfo }
  | { kind: "claimed"; info: ClaimInfo; portal: string }
  | { kind: "unavailable"; message: string }
  | { kind: "error"; message: string };

const TITLES: Record<State["kind"], string> = {
  loading: "Your seat",
  review: "Claim your seat",
  claimed: "Seat claimed",
  unavailable: "Invitation not available",
  error: "Something went wrong",
};

const GONE = "This invitation was already claimed, revoked, or replaced by a newer one. Ask the person who gave you the seat to send it again.";

/** The token of the link, read once; the address bar keeps only the path (no token in history or Referer). */
function takeToken(): string {
  const url = new URL(window.location.href);
  const token = url.searchParams.get("token") ?? "";
  if (token) {
    url.searchParams.delete("token");
    window.history.replaceState(null, "", url.pathname + url.search);
  }
  return token;
}

async function request<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<{ ok: true; data: T } | { ok: false; status: number; message: string }> {
  try {
    const res = await fetch(path, {
      method,
      headers: body === undefined ? undefined : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json: unknown = await res.json().catch(() => null);
    if (res.ok) return { ok: true, data: json as T };
    return { ok: false, status: res.status, message: errorOf(res.status, json).message };
  } catch {
    return { ok: false, status: 0, message: "The server could not be reached. Check your connection and try again." };
  }
}

let initialToken: string | undefined;

export function SeatClaimPage() {
  initialToken ??= takeToken();
  const token = initialToken;
  const [state, setState] = useState<State>({ kind: "loading" });
  const [busy, setBusy] = useState(false);
  useFocusHeading(state.kind);

  useEffect(() => {
    if (!token) return setState({ kind: "unavailable", message: "This link names no invitation. Open the link of the invitation email." });
    void (async () => {
      const r = await request<ClaimInfo>("GET", `/v1/customer-seats/claim/${encodeURIComponent(token)}`);
      if (r.ok) {
        return setState(r.data.can_claim
          ? { kind: "review", info: r.data }
          : { kind: "unavailable", message: "This invitation has expired. Ask the person who gave you the seat to send it again." });
      }
      setState(r.status === 404 ? { kind: "unavailable", message: GONE } : { kind: "error", message: r.message });
    })();
  }, [token]);

  async function claim(info: ClaimInfo) {
    setBusy(true);
    const r = await request<Claimed>("POST", "/v1/customer-seats/claim", { invitation_token: token });
    setBusy(false);
    if (!r.ok) return setState(r.status === 404 ? { kind: "unavailable", message: GONE } : { kind: "error", message: r.message });
    setState({ kind: "claimed", info, portal: `/portal?customer_session_token=${encodeURIComponent(r.data.customer_session_token)}` });
  }

  return <Page title={TITLES[state.kind]}>{body()}</Page>;

  function body() {
    switch (state.kind) {
      case "loading":
        return <Status>Loading the invitation…</Status>;
      case "review": {
        const i = state.info;
        return (
          <>
            <p className="lead">
              You have been given a seat of <strong>{i.product_name}</strong> from <strong>{i.organization_name}</strong>.
            </p>
            <dl className="facts">
              <dt>Product</dt>
              <dd>{i.product_name}</dd>
              <dt>From</dt>
              <dd>{i.organization_name}</dd>
              <dt>For</dt>
              <dd>{i.customer_email}</dd>
            </dl>
            <p className="hint">
              Claiming it makes you a customer of {i.organization_name} with this email address, and gives you what the seat includes.
            </p>
            <div className="actions">
              <button type="button" className="primary" onClick={() => void claim(i)} disabled={busy}>
                Claim seat
              </button>
            </div>
            <Status>{busy ? "Claiming your seat…" : null}</Status>
          </>
        );
      }
      case "claimed":
        return (
          <>
            <Status tone="success">
              Your seat of {state.info.product_name} from {state.info.organization_name} is yours.
            </Status>
            <div className="actions">
              <a className="button primary" href={state.portal}>
                Open your customer portal
              </a>
            </div>
            <p className="hint">The portal shows your benefits, such as license keys and downloads.</p>
          </>
        );
      case "unavailable":
        return <Status tone="error">{state.message}</Status>;
      case "error":
        return <Status tone="error">{state.message}</Status>;
    }
  }
}
