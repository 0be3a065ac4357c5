// The portal's connected accounts: GitHub and Discord, for github_repository and discord benefits.
// Connect goes to the provider (OAuth with PKCE, through the server) and comes back here; Disconnect forgets the
// account. Shown when a benefit needs one or an account is connected. GrantDelivery says, on a benefit, where a
// repository invitation or Discord role stands, or what it waits for.
import { useEffect, useRef, useState } from "react";
import { portalApi, type OauthPlatform, type PortalCustomer, type PortalError, type PortalGrant } from "../portal-api.js";
import { accountOf } from "../../../shared/kinds.js";
import { ACCOUNT_NAME } from "../kinds.js";
import { rich, t } from "../i18n/intl.js";
import { Status, type Tone } from "../ui.js";


export function platformsNeeded(grants: PortalGrant[], me: PortalCustomer): OauthPlatform[] {
  const needed = new Set<OauthPlatform>();
  for (const g of grants) {
    const p = accountOf(g.benefit.type);
    if (p && !g.is_revoked) needed.add(p);
  }
  for (const p of Object.keys(me.oauth_accounts ?? {})) if (p === "github" || p === "discord") needed.add(p);
  return (["github", "discord"] as const).filter((p) => needed.has(p));
}

export function Accounts({
  me,
  grants,
  token,
  onError,
  onChanged,
}: {
  me: PortalCustomer;
  grants: PortalGrant[];
  token: string;
  onError: (e: PortalError) => void;
  onChanged: (me: PortalCustomer) => void;
}) {
  const [message, setMessage] = useState<{ tone: Tone; text: string } | undefined>(() => {
    const connected = new URLSearchParams(window.location.search).get("oauth_connected");
    return connected === "github" || connected === "discord" ? { tone: "success", text: t("accounts.connected", { platform: ACCOUNT_NAME[connected] }) } : undefined;
  });
  const [busy, setBusy] = useState<OauthPlatform | null>(null);
  const platforms = platformsNeeded(grants, me);
  // the checkout's success view links here (#connected-accounts): the section renders after the page loaded
  const section = useRef<HTMLElement>(null);
  const shown = platforms.length > 0;
  useEffect(() => {
    if (shown && window.location.hash === "#connected-accounts") section.current?.scrollIntoView();
  }, [shown]);
  if (!shown) return null;

  async function connect(platform: OauthPlatform) {
    setBusy(platform);
    const returnTo = new URL(window.location.href);
    returnTo.searchParams.delete("oauth_connected");
    const r = await portalApi.authorizeAccount(token, platform, returnTo.toString());
    if (!r.ok) {
      setBusy(null);
      if (r.error.status === 401) return onError(r.error);
      return setMessage({ tone: "error", text: r.error.message });
    }
    window.location.assign(r.data.url);
  }

  async function disconnect(platform: OauthPlatform) {
    setBusy(platform);
    const r = await portalApi.disconnectAccount(token, platform);
    setBusy(null);
    if (!r.ok) {
      if (r.error.status === 401) return onError(r.error);
      return setMessage({ tone: "error", text: r.error.message });
    }
    const rest = { ...me.oauth_accounts };
    delete rest[platform];
    onChanged({ ...me, oauth_accounts: rest });
    // access already given stays with that account until the benefit ends (docs/decisions.md)
    setMessage({ tone: "success", text: t("accounts.disconnected", { platform: ACCOUNT_NAME[platform] }) });
  }

  return (
    <section id="connected-accounts" ref={section} aria-labelledby="accounts-heading">
      <h2 id="accounts-heading">{t("accounts.title")}</h2>
      <p className="hint">{t("accounts.hint")}</p>
      <ul className="items">
        {platforms.map((p) => {
          const account = me.oauth_accounts?.[p];
          return (
            <li key={p} className="item">
              <h3>{ACCOUNT_NAME[p]}</h3>
              {account ? (
                <>
                  <p>{rich("accounts.connectedAs", { account: account.account_username ?? account.account_id, b: (chunks) => <strong>{chunks}</strong> })}</p>
                  <button type="button" className="secondary" disabled={busy !== null} onClick={() => void disconnect(p)}>
                    {t("accounts.disconnect", { platform: ACCOUNT_NAME[p] })}
                  </button>
                </>
              ) : (
                <>
                  <p className="empty">{t("accounts.notConnected")}</p>
                  <button type="button" disabled={busy !== null} onClick={() => void connect(p)}>
                    {t("accounts.connect", { platform: ACCOUNT_NAME[p] })}
                  </button>
                </>
              )}
            </li>
          );
        })}
      </ul>
      <Status tone={message?.tone}>{message?.text}</Status>
    </section>
  );
}

/**
 * Whether the benefit is delivered outside till (a repository invitation, a Discord role): GrantDelivery tells its
 * state.
 */
export const isDelivered = (type: string) => accountOf(type) !== undefined;

/**
 * Where a repository invitation or Discord role stands, or what it waits for: the customer's own account (with a
 * way to connect it), or the seller (never their instructions: access follows once the seller has set it up).
 */
export function GrantDelivery({ grant: g }: { grant: PortalGrant }) {
  const platform = accountOf(g.benefit.type);
  if (!platform || g.is_revoked) return null;
  if (g.error?.type === "account_not_connected") {
    return (
      <p className="empty" role="note">
        {rich("delivery.connect", { platform: ACCOUNT_NAME[platform], a: (chunks) => <a href="#connected-accounts">{chunks}</a> })}
      </p>
    );
  }
  if (g.error) {
    return (
      <p className="empty" role="note">
        {t(g.is_granted ? "delivery.changeWaiting" : "delivery.accessWaiting")}
      </p>
    );
  }
  if (typeof g.properties.granted_account_id !== "string") return <p className="empty">{t("benefits.settingUp")}</p>;
  if (platform === "github") {
    const repo = String(g.properties.granted_repository ?? `${String(g.properties.repository_owner)}/${String(g.properties.repository_name)}`);
    return typeof g.properties.invitation_id === "number" ? (
      <p>{rich("delivery.invited", { repo, a: (chunks) => <a href={`https://github.com/${repo}/invitations`}>{chunks}</a> })}</p>
    ) : (
      <p>{t("delivery.githubAccess", { repo })}</p>
    );
  }
  return <p>{t("delivery.discordRole")}</p>;
}
