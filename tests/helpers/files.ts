// Uploading a file the way Polar's clients do: files.create → PUT each part to its presigned URL (till's own)
// → files.uploaded with the parts' ETags.
import { createHash } from "node:crypto";
import type { Polar } from "@polar-sh/sdk";
import type { FileUpload } from "@polar-sh/sdk/models/components/fileupload.js";

export const sha256Base64 = (b: Buffer) => createHash("sha256").update(b).digest("base64");

/** Parts of at most `partSize` bytes covering `bytes`, each with its SHA-256. */
export function planParts(bytes: Buffer, partSize: number) {
  const parts = [];
  for (let start = 0, n = 1; start < bytes.length; start += partSize, n++) {
    const end = Math.min(start + partSize, bytes.length) - 1;
    parts.push({ number: n, chunkStart: start, chunkEnd: end, checksumSha256Base64: sha256Base64(bytes.subarray(start, end + 1)) });
  }
  return parts;
}

/** PUTs every part of `upload`; resolves with what files.uploaded wants. Throws unless each PUT is 200. */
export async function putParts(upload: FileUpload, bytes: Buffer) {
  const done = [];
  for (const part of upload.upload.parts) {
    const res = await fetch(part.url, {
      method: "PUT",
      headers: { ...part.headers, "content-type": upload.mimeType },
      body: new Uint8Array(bytes.subarray(part.chunkStart, part.chunkEnd + 1)),
    });
    const etag = res.headers.get("etag");
    if (res.status !== 200 || !etag) throw new Error(`part ${part.number}: ${res.status} ${await res.text()}`);
    done.push({ number: part.number, checksumEtag: etag, checksumSha256Base64: part.checksumSha256Base64 ?? null });
  }
  return done;
}

/** A complete upload: product media is a PNG, a downloadable a PDF. */
export async function uploadFile(
  sdk: Polar,
  name: string,
  bytes: Buffer,
  service: "downloadable" | "product_media" = "product_media",
) {
  const upload = await sdk.files.create({
    name,
    mimeType: service === "product_media" ? "image/png" : "application/pdf",
    size: bytes.length,
    checksumSha256Base64: sha256Base64(bytes),
    upload: { parts: planParts(bytes, 1024) },
    service,
  });
  const parts = await putParts(upload, bytes);
  return sdk.files.uploaded({ id: upload.id, fileUploadCompleted: { id: upload.upload.id, path: upload.path, parts } });
}
