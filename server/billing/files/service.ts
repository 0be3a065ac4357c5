// Rules for files: S3-style multipart uploads whose presigned part URLs point at till itself, completion with
// checksums, product media served publicly, and soft deletion. Bytes go through the FileStorage interface.
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { Readable } from "node:stream";
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { isUuid } from "../http.js";
import { invalid, notFound, notPermitted, validationError, type ValidationIssue } from "../errors.js";
import { alreadyUploaded } from "./errors.js";
import * as repo from "./repository.js";
import type { FileStorage } from "./storage.js";
import {
  PUBLIC_SERVICES,
  toFileReadWire,
  toFileUploadWire,
  type FileReadWire,
  type FileRow,
  type ProductMediaFileWire,
} from "./wire.js";

const NOT_FOUND = "File not found";
/** How long the presigned part URLs stay valid. */
export const UPLOAD_URL_TTL_MS = 60 * 60 * 1000;
const MAX_PARTS = 10_000;
const MB = 1024 * 1024;
const IMAGE_TYPES = /^image\/(jpeg|png|gif|webp|svg\+xml)$/;

// ---- input ----------------------------------------------------------------------------------------

const sha256Base64 = z
  .string()
  .regex(/^[A-Za-z0-9+/]{43}=$/, "Input should be a base64-encoded SHA-256 digest");

const PartInput = z.object({
  number: z.int().min(1).max(MAX_PARTS),
  chunk_start: z.int().min(0),
  chunk_end: z.int().min(0),
  checksum_sha256_base64: sha256Base64.nullish(),
});

const fileCreate = <S extends string>(service: S, mimeType: z.ZodString, maxSize: number) =>
  z
    .object({
      service: z.literal(service),
      name: z.string().trim().min(1).max(255),
      mime_type: mimeType,
      size: z.int().min(1).max(maxSize),
      checksum_sha256_base64: sha256Base64.nullish(),
      upload: z.object({ parts: z.array(PartInput).min(1).max(MAX_PARTS) }),
      version: z.string().max(255).nullish(),
      organization_id: z.string().nullish(),
    })
    .superRefine((f, ctx) => {
      // the parts, by number, must cover the file exactly: 0..size-1 without gaps or overlaps
      const parts = [...f.upload.parts].sort((a, b) => a.number - b.number);
      let next = 0;
      for (const [i, p] of parts.entries()) {
        const at = f.upload.parts.indexOf(p);
        if (i > 0 && parts[i - 1]?.number === p.number) {
          ctx.addIssue({ code: "custom", path: ["upload", "parts", at, "number"], message: "Part numbers must be unique" });
          return;
        }
        if (p.chunk_start !== next || p.chunk_end < p.chunk_start) {
          ctx.addIssue({
            code: "custom",
            path: ["upload", "parts", at],
            message: "Parts must cover the file in order, from byte 0 to size - 1, without gaps or overlaps",
          });
          return;
        }
        next = p.chunk_end + 1;
      }
      if (next !== f.size) {
        ctx.addIssue({ code: "custom", path: ["upload", "parts"], message: `The parts cover ${next} bytes, the file has ${f.size}` });
      }
    });

const imageType = z.string().regex(IMAGE_TYPES, "Only JPEG, PNG, GIF, WebP and SVG images are supported");

export const FileCreateInput = z.discriminatedUnion("service", [
  fileCreate("downloadable", z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, "Input should be a MIME type"), 10 * 1024 * MB),
  fileCreate("product_media", imageType, 10 * MB),
  fileCreate("organization_avatar", imageType, 1 * MB),
]);
export type FileCreateInput = z.output<typeof FileCreateInput>;

export const FilePatchInput = z.object({
  name: z.string().trim().min(1).max(255).nullish(),
  version: z.string().max(255).nullish(),
});
export type FilePatchInput = z.output<typeof FilePatchInput>;

export const FileUploadCompletedInput = z.object({
  id: z.string().min(1),
  path: z.string().min(1),
  parts: z
    .array(
      z.object({
        number: z.int().min(1).max(MAX_PARTS),
        checksum_etag: z.string().min(1),
        checksum_sha256_base64: sha256Base64.nullable(),
      }),
    )
    .min(1)
    .max(MAX_PARTS),
});
export type FileUploadCompletedInput = z.output<typeof FileUploadCompletedInput>;

// ---- the resource ---------------------------------------------------------------------------------

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** The file name's extension (lower case), kept on the stored path so downloads look like what was sent. */
function extensionOf(name: string): string {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(name);
  return m?.[1] ? `.${m[1].toLowerCase()}` : "";
}

export async function createFile(db: Db, organizationId: string, input: FileCreateInput, baseURL: string) {
  const id = randomUUID();
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + UPLOAD_URL_TTL_MS);
  const parts = [...input.upload.parts]
    .sort((a, b) => a.number - b.number)
    .map((p) => ({ number: p.number, chunk_start: p.chunk_start, chunk_end: p.chunk_end, checksum_sha256_base64: p.checksum_sha256_base64 ?? null }));
  const upload = { id: randomBytes(24).toString("base64url"), token_hash: hashToken(token), expires_at: expiresAt.toISOString(), parts };
  const declared = input.checksum_sha256_base64 ?? null;
  const row = await repo.insertFile(db, {
    id,
    organizationId,
    name: input.name,
    path: `${organizationId}/${id}${extensionOf(input.name)}`,
    mimeType: input.mime_type,
    size: input.size,
    service: input.service,
    version: input.version ?? null,
    checksumSha256Base64: declared,
    checksumSha256Hex: declared ? Buffer.from(declared, "base64").toString("hex") : null,
    upload,
  });
  return toFileUploadWire(row, {
    id: upload.id,
    parts: parts.map((p) => ({
      ...p,
      url: `${baseURL}/v1/files/${id}/parts/${p.number}?token=${token}`,
      expires_at: upload.expires_at,
      headers: p.checksum_sha256_base64 ? { "x-amz-checksum-sha256": p.checksum_sha256_base64 } : ({} as Record<string, string>),
    })),
  });
}

/**
 * Stores one part PUT to a presigned URL. The token in the URL is the only credential: a wrong or expired
 * token is 403 like S3's AccessDenied. Resolves with the part's ETag (MD5, hex).
 */
export async function uploadPart(
  db: Db,
  storage: FileStorage,
  id: string,
  partNumber: number,
  token: string | undefined,
  body: Readable,
  headerChecksum: string | undefined,
): Promise<string> {
  const row = isUuid(id) ? await repo.findFileAnyOrganization(db, id.toLowerCase()) : null;
  const upload = row?.upload;
  if (!row || !upload) throw notFound(NOT_FOUND);
  const given = Buffer.from(hashToken(token ?? ""), "hex");
  if (!timingSafeEqual(given, Buffer.from(upload.token_hash, "hex"))) throw notPermitted("The upload URL is not valid.");
  if (Date.parse(upload.expires_at) <= Date.now()) throw notPermitted("The upload URL has expired.");
  if (row.isUploaded) throw alreadyUploaded();
  const planned = upload.parts.find((p) => p.number === partNumber);
  if (!planned) throw invalid(["path", "number"], `The upload has no part ${partNumber}.`);
  const size = planned.chunk_end - planned.chunk_start + 1;
  const result = await storage.writePart(row.path, partNumber, body, {
    size,
    sha256Base64: planned.checksum_sha256_base64 ?? headerChecksum ?? null,
  });
  if (!result.ok) {
    throw result.reason === "size"
      ? invalid(["body"], `Part ${partNumber} must be ${size} bytes.`)
      : invalid(["body"], `The SHA-256 checksum of part ${partNumber} does not match.`);
  }
  return result.part.etag;
}

const stripQuotes = (etag: string) => etag.replace(/^"(.*)"$/, "$1");

/** POST /files/{id}/uploaded: checks every part against what was stored, joins them, marks the file uploaded. */
export async function completeUpload(
  db: Db,
  storage: FileStorage,
  organizationId: string,
  id: string,
  input: FileUploadCompletedInput,
  baseURL: string,
): Promise<FileReadWire> {
  return db.transaction(async (tx) => {
    const row = await repo.findFile(tx, organizationId, id);
    if (!row) throw notFound(NOT_FOUND);
    // completing twice answers like the first time
    if (row.isUploaded) return toFileReadWire(row, baseURL);
    const upload = row.upload;
    if (!upload || input.id !== upload.id) throw invalid(["body", "id"], "This is not the file's upload id.");
    if (input.path !== row.path) throw invalid(["body", "path"], "This is not the file's path.");
    const planned = new Map(upload.parts.map((p) => [p.number, p]));
    const listed = input.parts.map((p) => p.number);
    if (listed.length !== planned.size || new Set(listed).size !== listed.length || listed.some((n) => !planned.has(n))) {
      throw invalid(["body", "parts"], `List each of the ${planned.size} parts of the upload once.`);
    }
    const stored = new Map((await storage.listParts(row.path)).map((p) => [p.number, p]));
    const issues: ValidationIssue[] = [];
    input.parts.forEach((p, i) => {
      const plan = planned.get(p.number);
      const got = stored.get(p.number);
      if (!plan || !got || got.size !== plan.chunk_end - plan.chunk_start + 1) {
        issues.push({ loc: ["body", "parts", i], msg: `Part ${p.number} was not uploaded.`, type: "value_error" });
      } else if (stripQuotes(p.checksum_etag) !== got.etag) {
        issues.push({ loc: ["body", "parts", i, "checksum_etag"], msg: "The ETag does not match the uploaded part.", type: "value_error" });
      } else if (p.checksum_sha256_base64 !== null && p.checksum_sha256_base64 !== got.sha256Base64) {
        issues.push({
          loc: ["body", "parts", i, "checksum_sha256_base64"],
          msg: "The checksum does not match the uploaded part.",
          type: "value_error",
        });
      }
    });
    if (issues.length > 0) throw validationError(issues);
    const result = await storage.completeUpload(
      row.path,
      [...planned.keys()].sort((a, b) => a - b),
      row.checksumSha256Base64 ?? null,
    );
    if (!result.ok) {
      throw result.reason === "checksum_mismatch"
        ? invalid(["body"], "The file's SHA-256 checksum does not match the one given when it was created.")
        : invalid(["body", "parts"], "A part of the upload is missing.");
    }
    await repo.updateFile(tx, organizationId, id, {
      isUploaded: true,
      checksumEtag: result.object.etag,
      checksumSha256Base64: result.object.sha256.toString("base64"),
      checksumSha256Hex: result.object.sha256.toString("hex"),
      lastModifiedAt: new Date(),
      upload: null,
    });
    return getFileRow(tx, organizationId, id).then((r) => toFileReadWire(r, baseURL));
  });
}

async function getFileRow(db: Queryable, organizationId: string, id: string): Promise<FileRow> {
  const row = await repo.findFile(db, organizationId, id);
  if (!row) throw notFound(NOT_FOUND);
  return row;
}

export async function listFiles(
  db: Db,
  organizationId: string,
  filter: { ids?: string[] | undefined },
  pageNo: number,
  limit: number,
  baseURL: string,
) {
  const { rows, total } = await repo.listUploadedFiles(db, organizationId, filter, pageNo, limit);
  return { items: rows.map((r) => toFileReadWire(r, baseURL)), total };
}

export async function updateFile(
  db: Db,
  organizationId: string,
  id: string,
  input: FilePatchInput,
  baseURL: string,
): Promise<FileReadWire> {
  return db.transaction(async (tx) => {
    await getFileRow(tx, organizationId, id);
    await repo.updateFile(tx, organizationId, id, {
      ...(input.name ? { name: input.name } : {}),
      // an explicit null clears the version; an absent key leaves it
      ...(input.version !== undefined ? { version: input.version } : {}),
    });
    return toFileReadWire(await getFileRow(tx, organizationId, id), baseURL);
  });
}

/** Soft-deletes the file (it leaves every product's medias), then drops its bytes. */
export async function deleteFile(db: Db, storage: FileStorage, organizationId: string, id: string): Promise<void> {
  const row = await db.transaction(async (tx) => {
    const found = await getFileRow(tx, organizationId, id);
    await repo.deleteFile(tx, organizationId, id);
    return found;
  });
  await storage.discard(row.path);
}

/** The bytes of an uploaded public file (product media, avatar) for GET /files/{id}/public; else 404. */
export async function openPublicFile(db: Db, storage: FileStorage, id: string) {
  const row = isUuid(id) ? await repo.findFileAnyOrganization(db, id.toLowerCase()) : null;
  if (!row || !row.isUploaded || !PUBLIC_SERVICES.includes(row.service)) throw notFound(NOT_FOUND);
  const content = await storage.read(row.path);
  if (!content) throw notFound(NOT_FOUND);
  return { row, ...content };
}

// ---- signed downloads (a customer's downloadable benefit) ------------------------------------------

/** How long a download URL handed to a customer stays valid. */
export const DOWNLOAD_URL_TTL_MS = 60 * 60 * 1000;

const downloadSignature = (secret: string, fileId: string, expires: number) =>
  createHmac("sha256", `${secret}:file-download`).update(`${fileId}.${expires}`).digest("base64url");

/** A URL that serves the file's bytes to whoever holds it until `expiresAt`, like an S3 presigned GET. */
export function signedDownloadUrl(baseURL: string, secret: string, fileId: string, expiresAt: Date): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  return `${baseURL}/v1/files/${fileId}/download?expires=${expires}&signature=${downloadSignature(secret, fileId, expires)}`;
}

/**
 * The bytes behind a signed download URL; a wrong, altered or expired signature is 403 (S3's AccessDenied),
 * a file deleted or never uploaded 404.
 */
export async function openSignedDownload(db: Db, storage: FileStorage, secret: string, id: string, query: { expires?: unknown; signature?: unknown }) {
  const expires = typeof query.expires === "string" && /^\d{1,12}$/.test(query.expires) ? Number(query.expires) : NaN;
  const signature = typeof query.signature === "string" ? query.signature : "";
  const fileId = isUuid(id) ? id.toLowerCase() : "";
  const expected = Buffer.from(fileId && Number.isFinite(expires) ? downloadSignature(secret, fileId, expires) : "");
  const given = Buffer.from(signature);
  if (expected.length === 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw notPermitted("The download URL is not valid.");
  }
  if (expires * 1000 <= Date.now()) throw notPermitted("The download URL has expired.");
  const row = await repo.findFileAnyOrganization(db, fileId);
  if (!row || !row.isUploaded) throw notFound(NOT_FOUND);
  const content = await storage.read(row.path);
  if (!content) throw notFound(NOT_FOUND);
  return { row, ...content };
}

/** Uploaded, live files of the organization by id (downloadables of a benefit), in the order asked. */
export async function loadUploadedFiles(db: Queryable, organizationId: string, ids: string[]): Promise<FileRow[]> {
  const wanted = uniqueUuids(ids);
  if (wanted.length === 0) return [];
  const { rows } = await repo.listUploadedFiles(db, organizationId, { ids: wanted }, 1, wanted.length);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return wanted.flatMap((id) => byId.get(id) ?? []);
}

// ---- for other domains ----------------------------------------------------------------------------

const uniqueUuids = (ids: string[]) => [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];

/**
 * Each product's media files (`ProductMediaFileRead`) in order; every requested product gets an entry.
 * Pass the server's base URL (config.baseURL) so `public_url` is absolute; without it the URL is root-relative.
 */
export async function loadProductMedias(
  db: Queryable,
  organizationId: string,
  productIds: string[],
  baseURL = "",
): Promise<Map<string, ProductMediaFileWire[]>> {
  const ids = uniqueUuids(productIds);
  const out = new Map<string, ProductMediaFileWire[]>(ids.map((id) => [id, []]));
  for (const { productId, file } of await repo.mediasOfProducts(db, organizationId, ids)) {
    out.get(productId)?.push(toFileReadWire(file, baseURL) as ProductMediaFileWire);
  }
  return out;
}

/** The ids among `ids` that are not live, uploaded files of this organization (of `service` when given). */
export async function fileIdsExist(
  db: Queryable,
  organizationId: string,
  ids: string[],
  service?: "downloadable" | "product_media" | "organization_avatar",
): Promise<string[]> {
  const found = new Set(await repo.existingUploadedFileIds(db, organizationId, uniqueUuids(ids), service));
  return ids.filter((id) => !isUuid(id) || !found.has(id.toLowerCase()));
}

/** Replaces a product's medias (the caller checked them with fileIdsExist(…, "product_media")). */
export async function setProductMedias(db: Queryable, organizationId: string, productId: string, fileIds: string[]) {
  await repo.replaceProductMedias(db, organizationId, productId, fileIds.map((id) => id.toLowerCase()));
}
