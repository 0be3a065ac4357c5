// A download's Content-Disposition (RFC 6266): `filename` in printable ASCII for every client, `filename*` in UTF-8
// (RFC 8187) for the ones that read it, which is every current browser.

/** RFC 8187's value-chars: percent-encoded UTF-8, beyond what encodeURIComponent leaves ('()*). */
const extValue = (s: string) => encodeURIComponent(s).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** `attachment; filename="Handbook _ 2nd ed.pdf"; filename*=UTF-8''Handbook%20%E2%80%94%202nd%20ed.pdf`. */
export function contentDisposition(type: "inline" | "attachment", name: string, ascii = name): string {
  const plain = ascii.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `${type}; filename="${plain}"; filename*=UTF-8''${extValue(name)}`;
}
