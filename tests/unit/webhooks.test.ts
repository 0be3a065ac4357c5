// The pure parts of webhooks: signatures under both key derivations (checked against the Standard Webhooks
// library itself and Polar's SDK), the private-address table, the retry schedule and the 2 KB response cut.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { describe, expect, it } from "vitest";
import { isPrivateAddress, urlShapeError } from "../../server/billing/webhooks/address.js";
import { MAX_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_S } from "../../server/billing/webhooks/delivery.js";
import { postWebhook, truncateUtf8 } from "../../server/billing/webhooks/sender.js";
import { generateSecret, signHeaders, signingKeys, verifyWebhook } from "../../server/billing/webhooks/signing.js";

const body = JSON.stringify({
  type: "organization.updated",
  timestamp: "2030-01-01T00:00:00.000Z",
  data: { not: "validated by standardwebhooks" },
});

describe("signatures", () => {
  it("sign for Polar's SDK 0.x (UTF-8 key) and for Standard Webhooks (base64 key after whsec_)", () => {
    const secret = generateSecret();
    const headers = { ...signHeaders(signingKeys(secret), "msg_1", body) };
    // a generic Standard Webhooks receiver decodes the part after whsec_
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // Polar's 0.x SDK base64-encodes the whole string first: its key is the UTF-8 bytes
    expect(new Webhook(Buffer.from(secret, "utf8").toString("base64")).verify(body, headers)).toEqual(JSON.parse(body));
    // and the SDK gets as far as validating the payload model (a real Organization is checked in the API tests)
    expect(() => validateEvent(body, headers, secret)).toThrow(/Failed to parse event/);
    expect(() => validateEvent(body, headers, generateSecret())).toThrow(/No matching signature found/);
  });

  it("a secret without the whsec_ prefix signs with its UTF-8 bytes only", () => {
    expect(signingKeys("polar_whs_abc")).toEqual([Buffer.from("polar_whs_abc")]);
    expect(signingKeys("whsec_not base64!")).toHaveLength(1);
    expect(signHeaders(signingKeys("polar_whs_abc"), "m", body)["webhook-signature"].split(" ")).toHaveLength(1);
  });

  it("verify accepts either derivation and reports Standard Webhooks' messages", () => {
    const secret = generateSecret();
    const now = Date.now();
    const ts = Math.floor(now / 1000);
    const std = new Webhook(secret).sign("msg_2", new Date(ts * 1000), body);
    const base = { "webhook-id": "msg_2", "webhook-timestamp": String(ts) };
    expect(verifyWebhook(secret, { ...base, "webhook-signature": std }, Buffer.from(body), now)).toEqual({ ok: true, id: "msg_2", timestamp: ts });
    const polar = new Webhook(Buffer.from(secret).toString("base64")).sign("msg_2", new Date(ts * 1000), body);
    expect(verifyWebhook(secret, { ...base, "webhook-signature": polar }, Buffer.from(body), now).ok).toBe(true);
    const message = (h: Record<string, string>, at = now) => {
      const r = verifyWebhook(secret, h, Buffer.from(body), at);
      return r.ok ? "ok" : r.error.message;
    };
    expect(message({ ...base })).toBe("Missing required headers");
    expect(message({ ...base, "webhook-timestamp": "12x", "webhook-signature": std })).toBe("Invalid Signature Headers");
    expect(message({ ...base, "webhook-signature": std }, now + 301_000)).toBe("Message timestamp too old");
    expect(message({ ...base, "webhook-signature": std }, now - 301_000)).toBe("Message timestamp too new");
    expect(message({ ...base, "webhook-signature": std }, now + 300_000)).toBe("ok");
    expect(message({ ...base, "webhook-signature": "v1,AAAA" })).toBe("No matching signature found");
  });
});

describe("private addresses", () => {
  it.each([
    "127.0.0.1", "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.0.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
    "224.0.0.1", "255.255.255.255", "198.18.0.1", "::1", "::", "fc00::1", "fd12:3456::1", "fe80::1", "ff02::1",
    "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:192.168.1.1", "64:ff9b::10.0.0.1", "2002:0a00:0001::1", "2001:db8::1",
    "not an ip",
  ])("%s is private", (ip) => expect(isPrivateAddress(ip)).toBe(true));

  it.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:0808:0808::1"])(
    "%s is public",
    (ip) => expect(isPrivateAddress(ip)).toBe(false),
  );

  it("http is for loopback only, and only when private targets are allowed", () => {
    expect(urlShapeError("http://127.0.0.1:3000/x", true)).toBeNull();
    expect(urlShapeError("http://localhost/x", true)).toBeNull();
    expect(urlShapeError("http://[::1]/x", true)).toBeNull();
    expect(urlShapeError("http://10.0.0.1/x", true)).toMatch(/https/);
    expect(urlShapeError("http://127.0.0.1/x", false)).toBe("The URL must use https.");
    expect(urlShapeError("https://example.com/x", false)).toBeNull();
  });
});

describe("delivery to a name that resolves to a private address", () => {
  it("is refused before connecting unless private targets are allowed", async () => {
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests += 1;
      res.end("ok");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://localhost:${(server.address() as AddressInfo).port}/hook`;
    try {
      const refused = await postWebhook(url, {}, "{}", { timeoutMs: 2_000, allowPrivate: false });
      expect(refused).toMatchObject({ succeeded: false, httpCode: null, error: expect.stringMatching(/private or loopback/) });
      expect(requests).toBe(0);
      const allowed = await postWebhook(url.replace("localhost", "127.0.0.1"), {}, "{}", { timeoutMs: 2_000, allowPrivate: true });
      expect(allowed).toMatchObject({ succeeded: true, httpCode: 200, response: "ok" });
      expect(requests).toBe(1);
    } finally {
      server.close();
    }
  });
});

describe("retry schedule", () => {
  it("makes ten attempts over about three days, with jitter of at most 10%", () => {
    expect(MAX_ATTEMPTS).toBe(10);
    const total = RETRY_DELAYS_S.reduce((a, b) => a + b, 0);
    expect(total / 86_400).toBeGreaterThan(2.5);
    expect(total / 86_400).toBeLessThan(3.5);
    const now = new Date(0);
    expect(nextAttemptAt(1, now, () => 0)!.getTime()).toBe(13_500);
    expect(nextAttemptAt(1, now, () => 1)!.getTime()).toBe(16_500);
    expect(nextAttemptAt(9, now, () => 0.5)!.getTime()).toBe(30 * 3_600_000);
    expect(nextAttemptAt(10, now)).toBeNull();
  });
});

describe("response bodies", () => {
  it("are cut to 2 KB on a character boundary", () => {
    expect(truncateUtf8(Buffer.from("short"))).toBe("short");
    const euro = truncateUtf8(Buffer.from("€".repeat(1000)));
    expect(Buffer.byteLength(euro)).toBeLessThanOrEqual(2048);
    expect(euro).toBe("€".repeat(682));
    expect(truncateUtf8(Buffer.from("a\u0000b"))).toBe("ab");
  });
});
