// Which side of an organization a request asks for (docs/architecture.md, "Sandbox"). Its own module, without
// imports: /v1's preHandler and /api/whoami read the header before the request helper runs.

/** What the request asks for: the sandbox, live, or (undefined) the credential's own side. */
export type Mode = "sandbox" | "live" | undefined;

/** The header a session selects the sandbox with (`Till-Sandbox: true`); a key's prefix decides for keys. */
export const SANDBOX_HEADER = "till-sandbox";

/** The header's value as a mode; null for a value that is neither true nor false. */
export function modeFromHeader(value: string | string[] | undefined): Mode | null {
  if (value === undefined) return undefined;
  const v = (Array.isArray(value) ? value.join(",") : value).trim().toLowerCase();
  if (v === "true" || v === "1") return "sandbox";
  if (v === "false" || v === "0") return "live";
  return null;
}
