// The portal sign-in code in development. With the dev mailbox, /dev/mail lists and shows
// the messages to loopback clients (404 to anyone else, in production and with SMTP), and the mail log line
// carries the portal code; the code email comes from the seller.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let dev: TestServer;
let seller: Seller;
const lines: string[] = [];

beforeAll(async () => {
  dev = await startServer({}, { devMailbox: true, mailLog: (l) => lines.push(l) });
  seller = await createSeller(dev, "devmail");
}, 60_000);

afterAll(async () => {
  await dev?.close();
});

async function askForCode(server: TestServer, s: Seller, email: string): Promise<void> {
  await s.sdk.customers.create({ email });
  const res = await rawRequest(server.url, "", "POST", "/v1/customer-portal/customer-session/request", { email, organization_id: s.organizationId });
  expect(res.status).toBe(202);
}

describe("the dev mailbox", () => {
  it("lists the portal code email (from the seller) at /dev/mail, shows it, and the log line carries the code that signs in", async () => {
    const org = await seller.sdk.organizations.get({ id: seller.organizationId });
    const email = `devmail-${Date.now().toString(36)}@example.com`;
    await askForCode(dev, seller, email);

    const line = lines.find((l) => l.includes(email));
    expect(line).toBeDefined();
    const code = /\(portal code ([A-Z2-9]{8})\)/.exec(line!)?.[1];
    expect(code).toHaveLength(8);
    // the code from the log signs in
    const signedIn = await rawRequest(dev.url, "", "POST", "/v1/customer-portal/customer-session/authenticate", { code });
    expect(signedIn.status).toBe(200);

    const list = await fetch(`${dev.url}/dev/mail`);
    expect(list.status).toBe(200);
    expect(list.headers.get("content-type")).toMatch(/text\/html/);
    expect(list.headers.get("content-security-policy")).toContain("default-src 'none'");
    const listed = await list.text();
    expect(listed).toContain(`Access your ${org.name} purchases`);
    expect(listed).toContain(email);
    expect(listed).toContain(`${org.name} &#60;no-reply@till.localhost&#62;`);
    const href = /href="(\/dev\/mail\/[^"]+)"/.exec(listed)?.[1];
    expect(href).toBeDefined();

    const shown = await fetch(`${dev.url}${href}`);
    expect(shown.status).toBe(200);
    const body = await shown.text();
    expect(body).toContain("<iframe");
    expect(body).toContain("sandbox");
    expect(body).toContain(code);
    expect(body).toContain(`Sent by ${org.name}.`);
    expect(body).not.toContain("— till");

    // unknown or malformed message names are 404s
    expect((await fetch(`${dev.url}/dev/mail/nope`)).status).toBe(404);
    expect((await fetch(`${dev.url}/dev/mail/..%2F..%2Fetc%2Fpasswd`)).status).toBe(404);
  });

  it("answers 404 to a client that is not on loopback", async () => {
    for (const url of ["/dev/mail", "/dev/mail/anything"]) {
      const res = await dev.app.inject({ method: "GET", url, remoteAddress: "203.0.113.9" });
      expect(res.statusCode).toBe(404);
    }
    expect((await dev.app.inject({ method: "GET", url: "/dev/mail", remoteAddress: "::ffff:127.0.0.1" })).statusCode).toBe(200);
  });

  it("does not exist in production, nor with SMTP; production logs no code", async () => {
    const prodLines: string[] = [];
    const prod = await startServer({ NODE_ENV: "production" }, { devMailbox: true, mailLog: (l) => prodLines.push(l) });
    const smtp = await startServer({});
    try {
      expect((await fetch(`${prod.url}/dev/mail`)).status).toBe(404);
      expect((await fetch(`${smtp.url}/dev/mail`)).status).toBe(404);
      const s = await createSeller(prod, "prodmail");
      const email = `prodmail-${Date.now().toString(36)}@example.com`;
      await askForCode(prod, s, email);
      const line = prodLines.find((l) => l.includes(email));
      expect(line).toBeDefined();
      expect(line).not.toMatch(/portal code/);
    } finally {
      await Promise.all([prod.close(), smtp.close()]);
    }
  }, 60_000);
});
