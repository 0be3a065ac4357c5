// The device grant's token request (RFC 8628 §3.4): form-encoded as the spec sends it, read like the JSON one,
// and polled many times at once, one poll through per interval and one token per code. Codes, polling, approval
// and registered clients: device.test.ts.
import { describe, expect, it } from "vitest";
import { Client } from "../helpers/client.js";
import { bearer } from "./key-fixtures.js";
import {
  CLIENT_ID,
  deviceFixture,
  expectOAuthError,
  GRANT_TYPE,
  type OAuthError,
  type TokenResponse,
} from "./device-fixtures.js";

const fx = deviceFixture();

describe("the token request, form-encoded (RFC 8628 §3.4)", () => {
  function formPoll(form: Record<string, string>) {
    return new Client(fx.server.url).request<TokenResponse & OAuthError>("POST", "/api/auth/device/token", { form });
  }

  it("is read like the JSON one, up to the token", async () => {
    const code = await fx.requestCode();
    const fields = { grant_type: GRANT_TYPE, device_code: code.device_code, client_id: CLIENT_ID };
    expectOAuthError(await formPoll(fields), 400, "authorization_pending");
    await fx.alice.client.get(`/api/auth/device?user_code=${code.user_code}`);
    await fx.alice.client.post("/api/auth/device/approve", { userCode: code.user_code });
    await fx.waitInterval(code.device_code);
    const token = await formPoll(fields);
    expect(token.status, token.text).toBe(200);
    expect(token.body.token_type).toBe("Bearer");
    const who = await new Client(fx.server.url).get<{ user: { id: string } }>("/api/auth/get-session", bearer(token.body.access_token));
    expect(who.body.user.id).toBe(fx.alice.user.id);
  });

  it("answers invalid_request for a repeated parameter, a missing one or a wrong grant type", async () => {
    const code = await fx.requestCode();
    const raw = (body: string) =>
      fetch(`${fx.server.url}/api/auth/device/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
        body,
      });
    const twice = await raw(`grant_type=${encodeURIComponent(GRANT_TYPE)}&device_code=${code.device_code}&device_code=x&client_id=${CLIENT_ID}`);
    expect(twice.status).toBe(400);
    expect(await twice.json()).toEqual({ error: "invalid_request", error_description: "device_code must not be repeated" });
    expect((await formPoll({ grant_type: GRANT_TYPE, client_id: CLIENT_ID })).status).toBe(400);
    expect((await formPoll({ grant_type: "password", device_code: code.device_code, client_id: CLIENT_ID })).status).toBe(400);
    // none of these counted as a poll of the code
    expect((await fx.row(code.device_code))?.lastPolledAt).toBeNull();
  });
});

describe("polling at once", () => {
  const PARALLEL = 10;

  async function burst(code: string): Promise<string[]> {
    const answers = await Promise.all(Array.from({ length: PARALLEL }, () => fx.poll(code)));
    return answers.map((a) => (a.status === 200 ? "token" : (a.body.error ?? `status ${a.status}`))).sort();
  }

  it("lets exactly one of 10 parallel polls through per interval; the rest get slow_down", async () => {
    const code = await fx.requestCode();
    const pending = ["authorization_pending", ...Array<string>(PARALLEL - 1).fill("slow_down")];
    // the first polls of a code (never polled before)
    expect(await burst(code.device_code)).toEqual(pending);
    // and after an interval
    await fx.waitInterval(code.device_code);
    expect(await burst(code.device_code)).toEqual(pending);
  });

  it("issues one token to 10 parallel polls of an approved code", async () => {
    const code = await fx.requestCode();
    await fx.alice.client.get(`/api/auth/device?user_code=${code.user_code}`);
    await fx.alice.client.post("/api/auth/device/approve", { userCode: code.user_code });
    const answers = await burst(code.device_code);
    expect(answers.filter((a) => a === "token")).toHaveLength(1);
    // the others lost the poll, or came after the code was spent
    expect(answers.filter((a) => a !== "token" && a !== "slow_down" && a !== "invalid_grant")).toEqual([]);
  });
});
