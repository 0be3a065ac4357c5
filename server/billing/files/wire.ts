// The Polar file shapes (`FileRead` by service, `ProductMediaFileRead`, `FileUpload`), built from file rows.
import type { InferSelectModel } from "drizzle-orm";
import type { file } from "../../db/schema/index.js";

export type FileRow = InferSelectModel<typeof file>;

export const FILE_SERVICES = ["downloadable", "product_media", "organization_avatar"] as const;
export type FileService = (typeof FILE_SERVICES)[number];
/** Services whose files anyone may fetch (images on the checkout page, avatars). */
export const PUBLIC_SERVICES: readonly string[] = ["product_media", "organization_avatar"];

/** "1.2 MB": binary units with one decimal, the way Polar writes them. */
export function sizeReadable(bytes: number): string {
  let n = bytes;
  for (const unit of ["", "K", "M", "G", "T", "P", "E", "Z"]) {
    if (Math.abs(n) < 1024) return `${n.toFixed(1)} ${unit}B`;
    n /= 1024;
  }
  return `${n.toFixed(1)} YiB`;
}

/** Where a public file's bytes are served (GET, no token). */
export const publicUrl = (baseURL: string, id: string) => `${baseURL}/v1/files/${id}/public`;

function fileBase(row: FileRow) {
  return {
    id: row.id,
    organization_id: row.organizationId,
    name: row.name,
    path: row.path,
    mime_type: row.mimeType,
    size: row.size,
    storage_version: row.storageVersion ?? null,
    checksum_etag: row.checksumEtag ?? null,
    checksum_sha256_base64: row.checksumSha256Base64 ?? null,
    checksum_sha256_hex: row.checksumSha256Hex ?? null,
    last_modified_at: row.lastModifiedAt?.toISOString() ?? null,
    version: row.version ?? null,
    service: row.service,
    is_uploaded: row.isUploaded,
    size_readable: sizeReadable(row.size),
  };
}

/** `DownloadableFileRead` | `ProductMediaFileRead` | `OrganizationAvatarFileRead` (the last two add public_url). */
export function toFileReadWire(row: FileRow, baseURL: string) {
  return {
    ...fileBase(row),
    created_at: row.createdAt.toISOString(),
    ...(PUBLIC_SERVICES.includes(row.service) ? { public_url: publicUrl(baseURL, row.id) } : {}),
  };
}
export type FileReadWire = ReturnType<typeof toFileReadWire>;
export type ProductMediaFileWire = FileReadWire & { public_url: string };

export interface UploadPartWire {
  number: number;
  chunk_start: number;
  chunk_end: number;
  checksum_sha256_base64: string | null;
  url: string;
  expires_at: string;
  headers: Record<string, string>;
}

/** `FileUpload`: the file plus where to PUT each part. */
export function toFileUploadWire(row: FileRow, upload: { id: string; parts: UploadPartWire[] }) {
  return { ...fileBase(row), created_at: row.createdAt.toISOString(), upload: { id: upload.id, path: row.path, parts: upload.parts } };
}
