// The shape of /api/auth's refusals (the product spec's calls and errors): every error has a message and a code, the
// code the upper-cased message; the routes better-auth answers with a bare 401 of `null`; "Either userId or session is
// required" for the provider-token calls; and an invitation past its expiry reads `expired`.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../server/db/schema/index.js";
import { Client } from "../helpers/client.js";
import { accountFixture, signedUp, type ApiError } from "./account-fixtures.js";
import { createOrg, signedIn } from "./org-fixtures.js";

const fx = accountFixture();

describe("errors in the spec's shape", () => {
  it("answers 401 with a message and a code where better-auth sends a body of null", async () => {
    const anonymous = new Client(fx.server.url);
    const calls: Array<[string, unknown]> = [
      ["/api/auth/get-access-token", { providerId: "github", userId: "00000000-0000-4000-8000-000000000000" }],
      ["/api/auth/refresh-token", { providerId: "github", userId: "00000000-0000-4000-8000-000000000000" }],
      ["/api/auth/organization/create", { name: "Nobody's", slug: "nobodys" }],
      ["/api/auth/admin/list-user-sessions", { userId: "00000000-0000-4000-8000-000000000000" }],
    ];
    for (const [path, body] of calls) {
      const res = await anonymous.post<ApiError>(path, body);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 401, body: { message: "Unauthorized", code: "UNAUTHORIZED" } });
    }
  });

  it('answers the provider-token calls without a session or a userId with 400 "Either userId or session is required"', async () => {
    const anonymous = new Client(fx.server.url);
    for (const body of [{ providerId: "github" }, { accountId: "any" }]) {
      for (const path of ["/api/auth/get-access-token", "/api/auth/refresh-token"]) {
        const res = await anonymous.post<ApiError>(path, body);
        expect({ path, status: res.status, body: res.body }).toEqual({
          path,
          status: 400,
          body: { message: "Either userId or session is required", code: "USER_ID_OR_SESSION_REQUIRED" },
        });
      }
    }
  });

  it('gives "Email is the same" and "No fields to update" their codes', async () => {
    const person = await signedUp(fx.server, "codes");
    const same = await person.client.post<ApiError>("/api/auth/change-email", { newEmail: person.email });
    expect(same.status).toBe(400);
    expect(same.body).toEqual({ message: "Email is the same", code: "EMAIL_IS_THE_SAME" });
    const nothing = await person.client.post<ApiError>("/api/auth/update-user", {});
    expect(nothing.status).toBe(400);
    expect(nothing.body).toEqual({ message: "No fields to update", code: "NO_FIELDS_TO_UPDATE" });
  });

  it("leaves pages and answers already in shape as they are", async () => {
    const page = await new Client(fx.server.url).get("/api/auth/error?error=state_mismatch");
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const wrong = await new Client(fx.server.url).post<ApiError>("/api/auth/sign-in/email", { email: "nobody@example.com", password: "wrong-password" });
    expect(wrong.body).toEqual({ message: "Invalid email or password", code: "INVALID_EMAIL_OR_PASSWORD" });
  });
});

describe("an invitation past its expiry", () => {
  it("reads expired in the organization's list, and its invitee is told it expired", async () => {
    const owner = await signedIn(fx.server, "inv-owner");
    const org = await createOrg(owner.client, "Late Invites");
    const invitee = await signedIn(fx.server, "inv-late");
    const stranger = await signedIn(fx.server, "inv-stranger");
    const invite = async () => {
      const res = await owner.client.post<{ id: string; status: string }>("/api/auth/organization/invite-member", {
        email: invitee.email,
        role: "member",
        organizationId: org.id,
      });
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const late = await invite();
    await fx.server.database.db
      .update(schema.invitation)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(schema.invitation.id, late.id));
    const list = async () =>
      (await owner.client.get<Array<{ id: string; status: string }>>(`/api/auth/organization/list-invitations?organizationId=${org.id}`)).body;
    expect((await list()).find((i) => i.id === late.id)?.status).toBe("expired");
    // the row itself is not rewritten: the status is derived on read
    const [row] = await fx.server.database.db.select().from(schema.invitation).where(eq(schema.invitation.id, late.id));
    expect(row?.status).toBe("pending");

    for (const [method, path, body] of [
      ["POST", "/api/auth/organization/accept-invitation", { invitationId: late.id }],
      ["POST", "/api/auth/organization/reject-invitation", { invitationId: late.id }],
      ["GET", `/api/auth/organization/get-invitation?id=${late.id}`, undefined],
    ] as const) {
      const res = await invitee.client.request<ApiError>(method, path, body ? { json: body } : {});
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 400, body: { message: "Invitation expired", code: "INVITATION_EXPIRED" } });
      // anyone else learns nothing of it
      const other = await stranger.client.request<ApiError>(method, path, body ? { json: body } : {});
      expect(other.body.code).not.toBe("INVITATION_EXPIRED");
    }
    expect((await invitee.client.get<unknown[]>("/api/auth/organization/list")).body).toEqual([]);

    // a new invitation is pending and can be accepted
    const fresh = await invite();
    expect((await list()).find((i) => i.id === fresh.id)?.status).toBe("pending");
    const accepted = await invitee.client.post("/api/auth/organization/accept-invitation", { invitationId: fresh.id });
    expect(accepted.status, accepted.text).toBe(200);
  });
});
