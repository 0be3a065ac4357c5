// The customer portal's team calls (Polar's customerPortal.members and the signed-in user): who is signed in —
// the customer, or a member of a team customer with a role — and the team's members, which the owner and billing
// managers add, change the role of and remove.
import { all, call } from "./portal-api.js";

export type MemberRole = "owner" | "billing_manager" | "member";

/** PortalAuthenticatedUser. */
export interface PortalUser {
  type: "customer" | "member";
  name: string | null;
  email: string;
  customer_id: string;
  member_id?: string | null;
  role?: MemberRole | null;
}

/** CustomerPortalMember. */
export interface PortalMember {
  id: string;
  email: string;
  name: string | null;
  role: MemberRole;
  created_at: string;
}

/**
 * Whether the signed-in user manages the team (and its billing): an individual customer, a team's owner or billing
 * manager.
 */
export const managesBilling = (u: PortalUser | null) => !u || u.type !== "member" || u.role !== "member";

export const membersApi = {
  user: (token: string) => call<PortalUser>(token, "GET", "/customer-session/user"),
  list: (token: string) => all<PortalMember>(token, "/members"),
  add: (token: string, body: { email: string; name: string | null; role: MemberRole }) =>
    call<PortalMember>(token, "POST", "/members", body),
  setRole: (token: string, id: string, role: MemberRole) =>
    call<PortalMember>(token, "PATCH", `/members/${encodeURIComponent(id)}`, {
      role,
    }),
  remove: (token: string, id: string) => call<null>(token, "DELETE", `/members/${encodeURIComponent(id)}`),
};
