// `till files upload|list`: files for downloadable benefits and product media (/v1/files). An upload is the
// flow Polar's clients follow, against till's own presigned URLs: create the file with its parts and their
// SHA-256 (POST /v1/files/), PUT each part's bytes to its URL, then mark it uploaded with the parts' ETags
// (POST /v1/files/{id}/uploaded). The file is read part by part, so a large download never sits in memory whole.
import { createHash } from "node:crypto";
import { open as openFile, stat } from "node:fs/promises";
import path from "node:path";
import { Option, type Command } from "commander";
import { failFor, v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import { requireCredential, type Context } from "../context.js";
import { CliError, UsageError } from "../errors.js";
import { exchange } from "../http.js";
import { day, listOptions, listResource, type ListOptions } from "../resources.js";

export const SERVICES = ["downloadable", "product_media"] as const;
type Service = (typeof SERVICES)[number];

/** Bytes per part: one part in memory at a time. */
export const PART_SIZE = 8 * 1024 * 1024;
const PART_TIMEOUT_MS = 10 * 60_000;

/** The usual types by extension; anything else is sent as application/octet-stream unless --mime-type says. */
const MIME_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
  tgz: "application/gzip",
  tar: "application/x-tar",
  epub: "application/epub+zip",
  json: "application/json",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  html: "text/html",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  mp4: "video/mp4",
  mov: "video/quicktime",
  ttf: "font/ttf",
  otf: "font/otf",
  woff2: "font/woff2",
};

export function mimeTypeOf(file: string): string {
  return MIME_TYPES[path.extname(file).slice(1).toLowerCase()] ?? "application/octet-stream";
}

interface PlannedPart {
  number: number;
  chunk_start: number;
  chunk_end: number;
  checksum_sha256_base64: string;
}

interface WireFile {
  id: string;
  name: string;
  mime_type: string;
  size: number;
  size_readable: string;
  service: Service | "organization_avatar";
  is_uploaded: boolean;
  created_at: string;
  public_url?: string;
}

interface WireUpload extends WireFile {
  path: string;
  upload: { id: string; path: string; parts: { number: number; chunk_start: number; chunk_end: number; url: string; headers: Record<string, string> }[] };
}

async function readPart(handle: Awaited<ReturnType<typeof openFile>>, start: number, end: number): Promise<Buffer> {
  const buffer = Buffer.alloc(end - start + 1);
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
  if (bytesRead !== buffer.length) throw new CliError("the file changed while it was being uploaded", { hint: "run the command again" });
  return buffer;
}

/** The parts of a file of `size` bytes, each with its SHA-256, and the whole file's. */
async function planParts(handle: Awaited<ReturnType<typeof openFile>>, size: number): Promise<{ parts: PlannedPart[]; sha256: string }> {
  const whole = createHash("sha256");
  const parts: PlannedPart[] = [];
  for (let start = 0, number = 1; start < size; start += PART_SIZE, number++) {
    const end = Math.min(start + PART_SIZE, size) - 1;
    const bytes = await readPart(handle, start, end);
    whole.update(bytes);
    parts.push({ number, chunk_start: start, chunk_end: end, checksum_sha256_base64: createHash("sha256").update(bytes).digest("base64") });
  }
  return { parts, sha256: whole.digest("base64") };
}

async function statFile(file: string): Promise<number> {
  try {
    const s = await stat(file);
    if (s.isDirectory()) throw Object.assign(new Error("a directory"), { code: "EISDIR" });
    return s.size;
  } catch (err) {
    throw new UsageError(`${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

interface UploadOptions {
  service: Service;
  name?: string;
  mimeType?: string;
  fileVersion?: string;
}

async function upload(ctx: Context, opts: UploadOptions, [file]: string[]): Promise<void> {
  if (file === undefined) throw new UsageError("missing the file to upload");
  const size = await statFile(file);
  if (size === 0) throw new UsageError(`${file}: the file is empty`);
  const name = opts.name ?? path.basename(file);
  const mimeType = opts.mimeType ?? mimeTypeOf(file);
  const credential = requireCredential(ctx);
  const api = v1(ctx);
  const handle = await openFile(file, "r");
  try {
    const { parts, sha256 } = await ctx.out.loading(`Reading ${name}`, planParts(handle, size));
    const created = await ctx.out.loading(
      "Creating the file",
      api.send<WireUpload>("POST", "/files/", {
        service: opts.service,
        name,
        mime_type: mimeType,
        size,
        checksum_sha256_base64: sha256,
        upload: { parts },
        version: opts.fileVersion,
      }),
    );
    const done: { number: number; checksum_etag: string; checksum_sha256_base64: string | null }[] = [];
    for (const part of created.upload.parts) {
      const bytes = await readPart(handle, part.chunk_start, part.chunk_end);
      // the presigned URL carries its own token: no credential goes with the bytes
      const res = await ctx.out.loading(
        `Uploading part ${part.number} of ${created.upload.parts.length}`,
        exchange(new URL(part.url), { method: "PUT", headers: { ...part.headers, "content-type": mimeType, "content-length": String(bytes.length) }, body: bytes, timeoutMs: PART_TIMEOUT_MS }),
      );
      const etag = res.headers.etag;
      if (res.status !== 200 || !etag) {
        let body: unknown = res.text;
        try {
          body = JSON.parse(res.text) as unknown;
        } catch {
          // not JSON: the text itself
        }
        failFor({ status: res.status, body, requestId: res.headers["x-request-id"] }, credential, `PUT part ${part.number} of file ${created.id}`);
      }
      done.push({ number: part.number, checksum_etag: etag, checksum_sha256_base64: parts[part.number - 1]?.checksum_sha256_base64 ?? null });
    }
    const uploaded = await ctx.out.loading(
      "Completing the upload",
      api.send<WireFile>("POST", `/files/${created.id}/uploaded`, { id: created.upload.id, path: created.upload.path, parts: done }),
    );
    const next =
      uploaded.service === "downloadable"
        ? `attach it to a benefit: till benefits create downloadables --description … --file ${uploaded.id}`
        : `public at ${uploaded.public_url ?? "its public_url"}`;
    ctx.out.done(uploaded, `Uploaded ${uploaded.name} (${uploaded.size_readable}, ${uploaded.mime_type}) as file ${uploaded.id}.`);
    ctx.out.info(next);
  } finally {
    await handle.close();
  }
}

async function list(ctx: Context, opts: ListOptions) {
  await listResource<WireFile>(ctx, opts, {
    path: "/files/",
    noun: "files",
    empty: "No files yet: upload one with `till files upload <path>`.",
    columns: [
      { header: "NAME", value: (f) => f.name },
      { header: "SERVICE", value: (f) => f.service },
      { header: "SIZE", value: (f) => f.size_readable },
      { header: "UPLOADED", value: (f) => (f.is_uploaded ? "yes" : "no") },
      { header: "CREATED", value: (f) => day(f.created_at) },
      { header: "ID", value: (f) => f.id },
    ],
  });
}

export function register(program: Command): void {
  const files = program
    .command("files")
    .description("upload files for downloadable benefits and product media")
    .addHelpText("after", examples(["till files upload ebook.pdf", "till files upload cover.png --service product_media", "till files list"]));

  files
    .command("upload")
    .description("upload a file (a download for a benefit, or a product image)")
    .argument("<path>", "the file to upload")
    .addOption(new Option("--service <service>", `what the file is for: ${SERVICES.join(" or ")}`).choices(SERVICES).default("downloadable"))
    .option("--name <name>", "the name shown to customers (default: the file's name)")
    .option("--mime-type <type>", "its media type (default: from the extension, else application/octet-stream)")
    .option("--file-version <label>", "a version label for the file (its /v1 `version`)")
    .addHelpText(
      "after",
      examples([
        "till files upload ebook.pdf",
        "till files upload ebook.pdf --name \"The Book (2nd edition)\" --file-version 2",
        "till files upload cover.png --service product_media --json",
      ]) +
        "\nA download may be up to 10 GB; product media are JPEG, PNG, GIF, WebP or SVG images of up to 10 MB. The file is\n" +
        `sent in parts of ${PART_SIZE / 1024 / 1024} MB, each checked with its SHA-256 by the server; --json prints the file as /v1 returns it.\n`,
    )
    .action(withContext(upload));

  listOptions(files.command("list").alias("ls").description("list the organization's files"))
    .addHelpText("after", examples(["till files list", "till files list --all --json"]))
    .action(withContext(list));
}
