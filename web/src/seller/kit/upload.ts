// Uploading a file from a page, as `till files upload` does: the file declared (POST /v1/files/, one part), its
// bytes PUT to the part's URL (which carries its own token: no credential goes with the bytes), then marked
// uploaded with the part's ETag (POST /v1/files/<id>/uploaded). A product's image or a benefit's download.
import { v1, type Scope } from "../api.js";

export interface UploadedFile {
  id: string;
  name: string;
  public_url?: string;
}

interface Upload {
  id: string;
  upload: { id: string; path: string; parts: Array<{ number: number; url: string; headers: Record<string, string> }> };
}

/** The file's id once uploaded, or the message saying why not. */
export async function uploadFile(scope: Scope, file: File, service: "product_media" | "downloadable"): Promise<UploadedFile | string> {
  if (file.size === 0) return `${file.name} is empty.`;
  const mime = file.type || "application/octet-stream";
  const created = await v1<Upload>(scope, "POST", "/files/", {
    body: { service, name: file.name, mime_type: mime, size: file.size, upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: file.size - 1 }] } },
  });
  if (!created.ok) return created.error.message;
  const part = created.data.upload.parts[0];
  if (!part) return "The server offered no part to upload.";
  let etag: string | null = null;
  try {
    const res = await fetch(part.url, { method: "PUT", headers: { ...part.headers, "content-type": mime }, body: file });
    etag = res.ok ? res.headers.get("etag") : null;
    if (!etag) return `Uploading ${file.name} failed (${res.status}).`;
  } catch {
    return `Uploading ${file.name} failed: the network refused.`;
  }
  const done = await v1<UploadedFile>(scope, "POST", `/files/${created.data.id}/uploaded`, {
    body: { id: created.data.upload.id, path: created.data.upload.path, parts: [{ number: 1, checksum_etag: etag, checksum_sha256_base64: null }] },
  });
  return done.ok ? done.data : done.error.message;
}
