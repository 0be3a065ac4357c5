// A team customer's members in the customer portal: shown to the owner and billing managers. The
// list of members with their roles; per member (not oneself, not the owner): change the role or remove; the
// owner may make another member the owner (and becomes a billing manager). A form adds a member by email.
import { useEffect, useState, type FormEvent } from "react";
import { t } from "../i18n/intl.js";
import { membersApi, type MemberRole, type PortalMember, type PortalUser } from "../portal-members-api.js";
import { Field, SelectField, Status, type Tone } from "../ui.js";
import type { OnError } from "./PortalCommon.js";

/** The roles a member can be given (the owner may also hand ownership on). */
const ADDABLE: readonly MemberRole[] = ["member", "billing_manager"];
const roleName = (role: MemberRole) => t(`members.role.${role}`);
const option = (value: MemberRole) => ({ value, label: roleName(value) });

function MemberItem({
  m,
  user,
  busy,
  onRole,
  onRemove,
}: {
  m: PortalMember;
  user: PortalUser;
  busy: boolean;
  onRole: (m: PortalMember, role: MemberRole) => void;
  onRemove: (m: PortalMember) => void;
}) {
  const self = m.id === user.member_id;
  const fixed = self || m.role === "owner";
  const roles = (user.role === "owner" ? [...ADDABLE, "owner" as const] : ADDABLE).map(option);
  const who = m.name ? `${m.name} (${m.email})` : m.email;
  return (
    <li className="member">
      <span className="member-who">{who}</span> <span className="member-role">{roleName(m.role)}</span>
      {self && <span className="member-self"> {t("members.you")}</span>}
      {!fixed && (
        <span className="actions">
          <select
            aria-label={t("members.roleOf", { email: m.email })}
            value={m.role}
            disabled={busy}
            onChange={(e) => onRole(m, e.currentTarget.value as MemberRole)}
          >
            {roles.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() => onRemove(m)}
            aria-label={t("members.removeLabel", { email: m.email })}
          >
            {t("members.remove")}
          </button>
        </span>
      )}
    </li>
  );
}

export function Members({
  user,
  token,
  onError,
  onUserChanged,
}: {
  user: PortalUser;
  token: string;
  onError: OnError;
  onUserChanged: () => void;
}) {
  const [members, setMembers] = useState<PortalMember[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, say] = useState<{ tone: Tone; text: string } | undefined>();
  const [emailError, setEmailError] = useState<string | undefined>();

  useEffect(() => {
    void membersApi.list(token).then((r) => (r.ok ? setMembers(r.data) : say({ tone: "error", text: onError(r.error) })));
  }, [token, onError]);

  async function refresh() {
    const r = await membersApi.list(token);
    if (r.ok) setMembers(r.data);
  }

  async function onAdd(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const email = String(data.get("email") ?? "").trim();
    const name = String(data.get("name") ?? "").trim() || null;
    setBusy(true);
    setEmailError(undefined);
    const r = await membersApi.add(token, {
      email,
      name,
      role: (String(data.get("role") ?? "") || "member") as MemberRole,
    });
    setBusy(false);
    if (!r.ok) {
      setEmailError(r.error.fields.email);
      return say({ tone: "error", text: onError(r.error) });
    }
    form.reset();
    await refresh();
    say({
      tone: "success",
      text: t("members.added", { email: r.data.email, role: r.data.role }),
    });
  }

  async function onRole(m: PortalMember, role: MemberRole) {
    setBusy(true);
    const r = await membersApi.setRole(token, m.id, role);
    setBusy(false);
    if (!r.ok) return say({ tone: "error", text: onError(r.error) });
    await refresh();
    say({
      tone: "success",
      text:
        role === "owner" ? t("members.nowOwner", { email: m.email }) : t("members.nowRole", { email: m.email, role }),
    });
    if (role === "owner") onUserChanged();
  }

  async function onRemove(m: PortalMember) {
    setBusy(true);
    const r = await membersApi.remove(token, m.id);
    setBusy(false);
    if (!r.ok) return say({ tone: "error", text: onError(r.error) });
    await refresh();
    say({
      tone: "success",
      text: t("members.removed", { email: m.email }),
    });
  }

  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">{t("members.title")}</h2>
      {members && (
        <ul className="member-list" aria-label={t("members.list")}>
          {members.map((m) => (
            <MemberItem
              key={m.id}
              m={m}
              user={user}
              busy={busy}
              onRole={(x, role) => void onRole(x, role)}
              onRemove={(x) => void onRemove(x)}
            />
          ))}
        </ul>
      )}
      <form onSubmit={(e) => void onAdd(e)} aria-label={t("members.addForm")} className="add-member">
        <Field label={t("members.email")} name="email" type="email" required autoComplete="off" maxLength={320} error={emailError} />
        <Field label={t("members.name")} name="name" optional autoComplete="off" maxLength={256} />
        <SelectField label={t("members.role")} name="role" options={ADDABLE.map(option)} placeholder={roleName("member")} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {t("members.add")}
          </button>
        </div>
      </form>
      {message && <Status tone={message.tone}>{message.text}</Status>}
    </section>
  );
}
