// Raw /v1 requests for what the SDK refuses to send (invalid bodies and queries), with Polar's error helpers.
export interface RawResponse {
  status: number;
  body: Record<string, unknown>;
}

/** `body` is sent as JSON (a string is sent as-is, e.g. broken JSON); an empty answer reads as null. */
export async function rawRequest(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<RawResponse> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
}

/** `rawRequest` bound to a server whose address is known once the file's `beforeAll` ran. */
export const rawOn =
  (server: () => { url: string }) =>
  (token: string, method: string, path: string, body?: unknown): Promise<RawResponse> =>
    rawRequest(server().url, token, method, path, body);

export type Issue = { loc: unknown[]; msg: string; type: string; input?: unknown };

/** The `detail` issues of a 422 body. */
export const issues = (body: Record<string, unknown>) => body.detail as Issue[];
/** Their `loc`s. */
export const locs = (body: Record<string, unknown>) => issues(body).map((d) => d.loc);
