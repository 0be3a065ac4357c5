// The set-up the device grant tests share (device*.test.ts): a server of the file's own with a second registered
// client, two people, and the steps of the grant: ask for a code, poll, pass the interval, read the code's row.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect } from "vitest";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import { deviceCode } from "../../server/db/schema/auth.js";
import { Client, type Res } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { person, type Person } from "./key-fixtures.js";

export const GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code";
export const CLIENT_ID = "till-cli";
/** A second registered client (TILL_DEVICE_CLIENTS). */
export const OTHER_CLIENT = { id: "desktop-app", name: "Desktop App" };
export const USER_CODE = /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/;

export interface CodeResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}
export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}
export interface OAuthError {
  error: string;
  error_description: string;
}

export function expectOAuthError(res: Res<unknown>, status: number, error: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toMatchObject({ error });
}

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function deviceFixture() {
  const fx = {} as { server: TestServer; alice: Person; bob: Person };
  beforeAll(async () => {
    // the test helper sets TILL_DEVICE_CODE_INTERVAL=1s
    fx.server = await startServer({ TILL_DEVICE_CLIENTS: `${OTHER_CLIENT.id}:${OTHER_CLIENT.name}` });
    fx.alice = await person(fx.server, "alice");
    fx.bob = await person(fx.server, "bob");
  });
  afterAll(async () => fx.server?.close());

  async function requestCode(s: TestServer = fx.server, scope = "openid profile"): Promise<CodeResponse> {
    const res = await new Client(s.url).post<CodeResponse>("/api/auth/device/code", { client_id: CLIENT_ID, scope });
    expect(res.status).toBe(200);
    return res.body;
  }

  function poll(code: string, clientId = CLIENT_ID): Promise<Res<TokenResponse & OAuthError>> {
    return new Client(fx.server.url).post("/api/auth/device/token", {
      grant_type: GRANT_TYPE,
      device_code: code,
      client_id: clientId,
    });
  }

  /** As if the polling interval had passed since the last poll. */
  async function waitInterval(code: string): Promise<void> {
    await fx.server.database.db
      .update(deviceCode)
      .set({ lastPolledAt: new Date(Date.now() - 60_000) })
      .where(eq(deviceCode.deviceCode, hashStoredToken(code)));
  }

  async function row(code: string) {
    const rows = await fx.server.database.db.select().from(deviceCode).where(eq(deviceCode.deviceCode, hashStoredToken(code)));
    return rows[0];
  }

  return Object.assign(fx, { requestCode, poll, waitInterval, row });
}
