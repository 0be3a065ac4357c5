// The authorization-code half of the OAuth servers the loopback peers stand in for (GitHub's, Discord's): PKCE
// (S256) codes issued to the registered client and redeemed once; and how a peer answers JSON.
import { createHash, randomBytes } from "node:crypto";
import type http from "node:http";

export function send(res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  if (status === 204 || body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

/** The authorization-code half both OAuth servers share. */
export class CodeIssuer {
  private codes = new Map<string, { challenge: string; redirect: string; user: string }>();
  /** Who "approves" the next authorization. */
  user = "";

  /** The seller's OAuth application, whose client_id and client_secret the token endpoint requires. */
  constructor(public client: { id: string; secret: string }) {}

  /** Whether the token request names the registered client with its secret. */
  authenticates(form: Record<string, string>): boolean {
    return form.client_id === this.client.id && form.client_secret === this.client.secret;
  }

  authorize(url: URL, res: http.ServerResponse): void {
    const redirect = url.searchParams.get("redirect_uri") ?? "";
    if (url.searchParams.get("code_challenge_method") !== "S256" || !url.searchParams.get("code_challenge")) {
      return send(res, 400, { error: "invalid_request", error_description: "PKCE (S256) is required" });
    }
    const code = randomBytes(12).toString("hex");
    this.codes.set(code, { challenge: url.searchParams.get("code_challenge")!, redirect, user: this.user });
    const to = new URL(redirect);
    to.searchParams.set("code", code);
    to.searchParams.set("state", url.searchParams.get("state") ?? "");
    res.writeHead(302, { location: to.toString() });
    res.end();
  }

  /** The user a code was issued for, when the verifier and redirect match; the code is used up. */
  redeem(form: Record<string, string>): string | null {
    const c = this.codes.get(form.code ?? "");
    this.codes.delete(form.code ?? "");
    if (!c || c.redirect !== form.redirect_uri || s256(form.code_verifier ?? "") !== c.challenge) return null;
    return c.user;
  }
}
