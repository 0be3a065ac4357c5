// /settings/team: the organization's members and their roles, and its pending invitations (better-auth's
// organization routes, /api/auth/organization/*, with the session cookie; the team is the live organization's,
// whichever side is shown). Owners and admins invite by email, change a member's role and remove a member, each
// removal or cancellation asked once more; better-auth refuses what the caller's role may not do, and says why.
import { useState, type FormEvent } from "react";
import { auth } from "../../api.js";
import { Field, SelectField, Status } from "../../ui.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { DataTable, type DataColumn } from "../kit/DataTable.js";
import { Empty } from "../kit/Empty.js";
import { RowActions } from "../kit/RowActions.js";
import { day, Loading } from "../parts.js";
import { useToast } from "../Toasts.js";

interface Member {
  id: string;
  userId: string;
  role: string;
  createdAt: string;
  user: { email: string; name: string | null };
}

interface Invitation {
  id: string;
  email: string;
  role: string;
  status: string;
  expiresAt: string;
}

const A = "/organization";

/** The built-in roles, as a seller decides between them. */
const ROLES = [
  { value: "member", label: "Member: sees everything, changes nothing" },
  { value: "admin", label: "Admin: changes everything but the organization's deletion" },
  { value: "owner", label: "Owner: everything, including handing out ownership" },
];
const roleName = (r: string) => r.split(",").map((x) => x.charAt(0).toUpperCase() + x.slice(1)).join(", ");

function Invite({ organizationId, roles, onDone }: { organizationId: string; roles: typeof ROLES; onDone: () => void }) {
  const toast = useToast();
  const [error, setError] = useState<string | undefined>(undefined);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const email = String(f.get("email") ?? "").trim();
    const r = await auth.post<Invitation>(`${A}/invite-member`, { email, role: String(f.get("role") || "member"), organizationId });
    if (!r.ok) return setError(r.error.message);
    setError(undefined);
    form.reset();
    toast(`Invited ${email}: they get an email with a link to join.`);
    onDone();
  }
  return (
    <section className="form-section" aria-labelledby="invite-h">
      <h2 id="invite-h">Invite someone</h2>
      <form onSubmit={(e) => void onSubmit(e)} aria-label="Invite someone" className="stack">
        <Field label="Email" name="email" type="email" required autoComplete="off" />
        <SelectField label="Role" name="role" defaultValue="member" options={roles} placeholder="Member (the default)" />
        <button type="submit" className="primary">
          Send the invitation
        </button>
      </form>
      <Status tone="error">{error}</Status>
    </section>
  );
}

function RoleDialog({ member, roles, onClose, onSave }: { member: Member; roles: typeof ROLES; onClose: () => void; onSave: (role: string) => Promise<void> }) {
  const [role, setRole] = useState(member.role);
  return (
    <Confirm
      trigger={null}
      open
      danger={false}
      onOpenChange={(o) => !o && onClose()}
      title={`Change ${member.user.email}'s role`}
      body={
        <label className="dialog-field">
          Role{" "}
          <select value={role} onChange={(e) => setRole(e.target.value)}>
            {[...roles, ...(roles.some((r) => r.value === member.role) ? [] : [{ value: member.role, label: roleName(member.role) }])].map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
        </label>
      }
      confirm="Save the role"
      onConfirm={() => onSave(role)}
    />
  );
}

export function Team() {
  const { organization, user, who } = useSeller();
  const toast = useToast();
  const mayManage = Boolean(who && (who.roles.includes("owner") || who.roles.includes("admin")));
  const q = `organizationId=${encodeURIComponent(organization.id)}`;
  const members = useLoad(() => auth.get<{ members: Member[]; total: number }>(`${A}/list-members?${q}&limit=200`), `members-${organization.id}`);
  const invitations = useLoad(
    () => (mayManage ? auth.get<Invitation[]>(`${A}/list-invitations?${q}`) : Promise.resolve({ ok: true as const, data: [] as Invitation[] })),
    `invitations-${organization.id}-${mayManage}`,
  );
  const [error, setError] = useState<string | undefined>(undefined);
  const [changing, setChanging] = useState<Member | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [canceling, setCanceling] = useState<Invitation | null>(null);
  const act = async (path: string, body: Record<string, unknown>, done: string, after: () => void) => {
    const r = await auth.post<unknown>(`${A}/${path}`, { ...body, organizationId: organization.id });
    if (!r.ok) return setError(r.error.message);
    setError(undefined);
    toast(done);
    after();
  };
  const roles = ROLES.filter((r) => r.value !== "owner" || who?.roles.includes("owner"));
  const columns: Array<DataColumn<Member>> = [
    { id: "email", label: "Email", cell: (m) => (m.userId === user.id ? `${m.user.email} (you)` : m.user.email) },
    { id: "name", label: "Name", cell: (m) => m.user.name || "—" },
    { id: "role", label: "Role", cell: (m) => roleName(m.role) },
    { id: "since", label: "Joined", cell: (m) => day(m.createdAt) },
  ];
  const pending = (invitations.data ?? []).filter((i) => i.status === "pending");
  return (
    <>
      <Loading loading={members.loading} error={members.error ?? invitations.error} />
      <Status tone="error">{error}</Status>
      {members.data && (
        <section aria-labelledby="members-h">
          <h2 id="members-h">Members</h2>
          <DataTable
            caption="The organization's members"
            rows={members.data.members}
            columns={columns}
            actions={
              mayManage
                ? (m) =>
                    m.userId === user.id || m.role.split(",").includes("owner") ? null : (
                      <RowActions
                        name={m.user.email}
                        items={[
                          { label: "Change role…", onSelect: () => setChanging(m) },
                          { label: "Remove…", danger: true, onSelect: () => setRemoving(m) },
                        ]}
                      />
                    )
                : undefined
            }
          />
        </section>
      )}
      {mayManage && (
        <section aria-labelledby="invitations-h">
          <h2 id="invitations-h">Pending invitations</h2>
          {invitations.data && pending.length === 0 ? (
            <Empty
              title="No pending invitations."
              command={`till api POST /api/auth/organization/invite-member -d '{"email":"ann@example.com","role":"member","organizationId":"${organization.id}"}'`}
            >
              Invite a colleague below: they get an email with a link, and join with the role you choose.
            </Empty>
          ) : (
            <DataTable
              caption="Invitations waiting for an answer"
              rows={pending}
              columns={[
                { id: "email", label: "Email", cell: (i) => i.email },
                { id: "role", label: "Role", cell: (i) => roleName(i.role) },
                { id: "expires", label: "Expires", cell: (i) => day(i.expiresAt) },
              ]}
              actions={(i) => <RowActions name={`the invitation of ${i.email}`} items={[{ label: "Cancel invitation…", danger: true, onSelect: () => setCanceling(i) }]} />}
            />
          )}
        </section>
      )}
      {mayManage && <Invite organizationId={organization.id} roles={roles} onDone={invitations.reload} />}
      {!mayManage && <p className="hint">Only the organization&apos;s owners and admins invite, change roles and remove members.</p>}
      {changing && (
        <RoleDialog
          member={changing}
          roles={roles}
          onClose={() => setChanging(null)}
          onSave={(role) => act("update-member-role", { memberId: changing.id, role }, `${changing.user.email} is now ${roleName(role)}.`, members.reload)}
        />
      )}
      {removing && (
        <Confirm
          trigger={null}
          open
          onOpenChange={(o) => !o && setRemoving(null)}
          title={`Remove ${removing.user.email}?`}
          body="They lose access to this organization at once, on both sides. You can invite them again."
          confirm="Yes, remove them"
          cancel="Keep them"
          onConfirm={() => act("remove-member", { memberIdOrEmail: removing.id }, `Removed ${removing.user.email}.`, members.reload)}
        />
      )}
      {canceling && (
        <Confirm
          trigger={null}
          open
          onOpenChange={(o) => !o && setCanceling(null)}
          title={`Cancel the invitation of ${canceling.email}?`}
          body="Its link stops working. You can invite them again."
          confirm="Yes, cancel it"
          cancel="Keep it"
          onConfirm={() => act("cancel-invitation", { invitationId: canceling.id }, `Canceled the invitation of ${canceling.email}.`, invitations.reload)}
        />
      )}
    </>
  );
}
