// A seller ready to call /v1: a signed-up user owning an active organization, with the SDK pointed at
// the test server. `sdk` authenticates with the owner's session token; `keySdk(perms)` with an org API key.
import { Polar } from "@polar-sh/sdk";
import { Polar as Polar049 } from "polar-sdk-049";
import { Client, uniqueEmail } from "./client.js";
import { startServer, type TestServer } from "./server.js";

export interface Seller {
  client: Client;
  user: { id: string; email: string };
  organizationId: string;
  slug: string;
  token: string;
  sdk: Polar;
  sdk049: Polar049;
  /** Creates an organization API key (all billing scopes unless `permissions` is given). */
  createKey(permissions?: Record<string, string[]>): Promise<string>;
  /** Creates a sandbox key of the organization (`till_test_…`, acting on its sandbox twin). */
  createSandboxKey(permissions?: Record<string, string[]>): Promise<string>;
}

let n = 0;

export function sdkFor(server: Pick<TestServer, "url">, token: string): Polar {
  return new Polar({ accessToken: token, serverURL: server.url });
}

export function sdk049For(server: Pick<TestServer, "url">, token: string): Polar049 {
  return new Polar049({ accessToken: token, serverURL: server.url });
}

export async function createSeller(server: Pick<TestServer, "url">, tag = "seller"): Promise<Seller> {
  const client = new Client(server.url);
  const { user, token } = await client.signUp(uniqueEmail(tag));
  const slug = `${tag}-${Date.now().toString(36)}-${n++}`;
  const org = await client.post<{ id: string }>("/api/auth/organization/create", { name: `${tag} org ${n}`, slug });
  if (org.status !== 200) throw new Error(`organization create failed: ${org.status} ${org.text}`);
  const active = await client.post("/api/auth/organization/set-active", { organizationId: org.body.id });
  if (active.status !== 200) throw new Error(`set-active failed: ${active.status} ${active.text}`);
  return {
    client,
    user,
    organizationId: org.body.id,
    slug,
    token,
    sdk: sdkFor(server, token),
    sdk049: sdk049For(server, token),
    createKey: (permissions) => createKey(client, org.body.id, permissions),
    createSandboxKey: (permissions) => createKey(client, org.body.id, permissions, "till_test_"),
  };
}

async function createKey(client: Client, organizationId: string, permissions?: Record<string, string[]>, prefix?: string): Promise<string> {
  const body: Record<string, unknown> = { organizationId, name: `key-${n++}` };
  if (permissions) body.permissions = permissions;
  if (prefix) body.prefix = prefix;
  const res = await client.post<{ key: string }>("/api/auth/api-key/create", body);
  if (res.status !== 200) throw new Error(`api key create failed: ${res.status} ${res.text}`);
  return res.body.key;
}

/**
 * What most /v1 test files start with: a server, a seller, another organization (tenancy), the seller's key and SDK.
 */
export interface SellerSetup {
  server: TestServer;
  seller: Seller;
  other: Seller;
  key: string;
  sdk: Polar;
}

/**
 * Starts a test server with a seller tagged `tag`, a second seller `other` and an API key of the first (all scopes).
 */
export async function startWithSellers(tag: string, otherTag = "other", env?: Record<string, string | undefined>): Promise<SellerSetup> {
  const server = await startServer(env);
  const seller = await createSeller(server, tag);
  const other = await createSeller(server, otherTag);
  const key = await seller.createKey();
  return { server, seller, other, key, sdk: sdkFor(server, key) };
}

/**
 * The seller as a German business registered for VAT in Germany, with the legal details its invoices print
 * (Acme Software GmbH, Berlin, DE123456789): the set-up of the invoice tests.
 */
export async function makeGermanInvoicer(server: TestServer, seller: Seller): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.url}/v1/organizations/${seller.organizationId}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${seller.token}`, "content-type": "application/json" },
    body: JSON.stringify({
      country: "DE",
      tax_settings: { registrations: [{ country: "DE" }], prices_include_tax: false },
      invoice_details: {
        name: "Acme Software GmbH",
        address: { line1: "Hauptstraße 1", postal_code: "10115", city: "Berlin", country: "DE" },
        tax_id: "DE123456789",
        email: "billing@acme.example",
      },
    }),
  });
  if (res.status !== 200) throw new Error(`organization update answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}
