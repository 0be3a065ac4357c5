// Guessing the portal's sign-in codes is stopped: a code is void after five wrong tries aimed
// at it (wrong codes with its first three characters), from however many addresses; one client address may
// guess wrong ten times in ten minutes; codes are requested at most five times per email (half an hour) and
// twenty times per address (ten minutes). Refusals are Polar-style 429s with Retry-After.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customerSessionCode } from "../../server/db/schema/index.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

let server: TestServer;
let seller: Seller;
let addressCounter = 0;
/** A new client address (the test client is a trusted loopback proxy naming it). */
const newAddress = () => `198.51.100.${++addressCounter % 250}`;

beforeAll(async () => {
  server = await startServer({ TILL_RATE_LIMIT: "true" });
  seller = await createSeller(server, "guessing");
});
afterAll(async () => server?.close());

async function post(path: string, body: unknown, address = newAddress()) {
  const res = await fetch(`${server.url}/v1/customer-portal/customer-session/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": address },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Record<string, unknown> | null };
}

const authenticate = (code: string, address?: string) => post("authenticate", { code }, address);

/** A customer of the seller and the code mailed to them. */
async function mailedCode(tag: string): Promise<string> {
  const email = `${tag}-${Date.now().toString(36)}@example.com`;
  await seller.sdk.customers.create({ email });
  expect((await post("request", { email, organization_id: seller.organizationId })).status).toBe(202);
  const mail = await server.mailbox.waitFor(email, /purchases/);
  const code = /^ *([A-Z2-9]{8})$/m.exec(mail.text)?.[1];
  if (!code) throw new Error("no code in the mail");
  return code;
}

/** A wrong code: `prefix`, then characters that differ from `code`'s at every place (`salt` varies them). */
function wrong(code: string, prefixLength: number, salt: number): string {
  const rest = [...code.slice(prefixLength)].map((c, i) => ALPHABET[(ALPHABET.indexOf(c) + 1 + ((salt + i) % 30)) % ALPHABET.length]);
  return code.slice(0, prefixLength) + rest.join("");
}

function expectTooMany(res: Awaited<ReturnType<typeof post>>): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: "TooManyRequests", detail: expect.stringMatching(/^Too many requests\. Try again in \d+ seconds\.$/) });
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
}

describe("a code under guessing", () => {
  it("is void after five wrong tries aimed at it, each from another address", async () => {
    const code = await mailedCode("aimed");
    for (let i = 0; i < 5; i++) expect((await authenticate(wrong(code, 3, i))).status).toBe(401);
    expect(await authenticate(code)).toMatchObject({ status: 401, body: { error: "Unauthorized" } });
    expect(await server.database.db.select().from(customerSessionCode).where(eq(customerSessionCode.selector, code.slice(0, 3)))).toEqual([]);
  });

  it("survives four aimed tries, and any number that begin otherwise", async () => {
    const code = await mailedCode("survives");
    for (let i = 0; i < 8; i++) expect((await authenticate(wrong(code, 0, i))).status).toBe(401);
    for (let i = 0; i < 4; i++) expect((await authenticate(wrong(code, 3, i))).status).toBe(401);
    const ok = await authenticate(code);
    expect(ok.status).toBe(200);
    expect(ok.body?.token).toMatch(/^till_cst_/);
  });
});

describe("one client address", () => {
  it("is answered 429 after ten wrong codes — the right one too — while other addresses go on", async () => {
    const code = await mailedCode("address");
    const address = "203.0.113.50";
    const statuses: number[] = [];
    // codes nobody was mailed (another first character than the real one's): they void nothing
    for (let i = 0; i < 10; i++) statuses.push((await authenticate(wrong(code, 0, i), address)).status);
    expect(statuses).toEqual(Array<number>(10).fill(401));
    expectTooMany(await authenticate(wrong(code, 0, 10), address));
    expectTooMany(await authenticate(code, address));
    expect((await authenticate(code, "203.0.113.51")).status).toBe(200);
  });

  it("may ask for codes twenty times in ten minutes", async () => {
    const address = "203.0.113.60";
    for (let i = 0; i < 20; i++) {
      const res = await post("request", { email: `someone-${i}@example.com`, organization_id: seller.organizationId }, address);
      expect(res.status, `request ${i + 1}`).toBe(202);
    }
    expectTooMany(await post("request", { email: "one-more@example.com", organization_id: seller.organizationId }, address));
  });
});

describe("one email", () => {
  it("gets five code requests in half an hour, known to the seller or not, from any addresses", async () => {
    for (const email of [`unknown-${Date.now().toString(36)}@example.com`, `Known-${Date.now().toString(36)}@example.com`]) {
      if (email.startsWith("Known")) await seller.sdk.customers.create({ email: email.toLowerCase() });
      for (let i = 0; i < 5; i++) expect((await post("request", { email, organization_id: seller.organizationId })).status).toBe(202);
      // the spelling does not matter
      expectTooMany(await post("request", { email: email.toUpperCase(), organization_id: seller.organizationId }));
    }
  });
});
