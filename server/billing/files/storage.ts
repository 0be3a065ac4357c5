// Where file bytes live. The files domain speaks to this interface only, in S3's terms (multipart parts with
// MD5 ETags, list the parts, then one complete step), so an S3 adapter can replace the local disk later.
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, open, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

export interface StoredPart {
  number: number;
  size: number;
  /** MD5 of the part, hex: what S3 answers as the part's ETag. */
  etag: string;
  sha256Base64: string;
}

export interface StoredObject {
  size: number;
  sha256: Buffer;
  /** S3's multipart ETag: MD5 of the parts' MD5s, "-", the number of parts. */
  etag: string;
}

export type WritePartResult = { ok: true; part: StoredPart } | { ok: false; reason: "size" | "checksum" };

export type CompleteResult =
  | { ok: true; object: StoredObject }
  | { ok: false; reason: "missing_part" | "checksum_mismatch" };

export interface FileStorage {
  /**
   * Stores one part of a pending upload, replacing an earlier attempt, if it is exactly `expected.size` bytes
   * (reading at most one byte more) with the expected SHA-256 when one is given; otherwise nothing changes.
   */
  writePart(
    objectPath: string,
    partNumber: number,
    body: Readable,
    expected: { size: number; sha256Base64: string | null },
  ): Promise<WritePartResult>;
  /** The parts stored so far for a pending upload. */
  listParts(objectPath: string): Promise<StoredPart[]>;
  /**
   * Joins the parts, in the given order, into the object and drops them. When `sha256Base64` is given and
   * the joined bytes differ, nothing changes.
   */
  completeUpload(objectPath: string, partNumbers: number[], sha256Base64: string | null): Promise<CompleteResult>;
  /** Drops the object and any pending parts. */
  discard(objectPath: string): Promise<void>;
  /** The object's bytes, or null when there is no such object. */
  read(objectPath: string): Promise<{ size: number; stream: Readable } | null>;
}

/** Keeps objects under `<root>/<path>` and pending parts under `<root>/.parts/<path>/<n>` (+ `<n>.json`). */
export function localFileStorage(root: string): FileStorage {
  const objectFile = (p: string) => path.join(root, ...p.split("/"));
  const partsDir = (p: string) => path.join(root, ".parts", ...p.split("/"));
  const tmpName = (file: string) => `${file}.${randomBytes(6).toString("hex")}.tmp`;

  async function listParts(objectPath: string): Promise<StoredPart[]> {
    const dir = partsDir(objectPath);
    const names = await readdir(dir).catch(() => [] as string[]);
    const parts: StoredPart[] = [];
    for (const name of names.filter((n) => /^\d+\.json$/.test(n))) {
      parts.push(JSON.parse(await readFile(path.join(dir, name), "utf8")) as StoredPart);
    }
    return parts.sort((a, b) => a.number - b.number);
  }

  return {
    listParts,

    async writePart(objectPath, partNumber, body, expected) {
      const dir = partsDir(objectPath);
      await mkdir(dir, { recursive: true });
      const target = path.join(dir, String(partNumber));
      const tmp = tmpName(target);
      const md5 = createHash("md5");
      const sha256 = createHash("sha256");
      let size = 0;
      const tooLarge = new Error("part too large");
      try {
        await pipeline(
          body,
          async function* (source: AsyncIterable<Buffer>) {
            for await (const chunk of source) {
              size += chunk.length;
              if (size > expected.size) throw tooLarge;
              md5.update(chunk);
              sha256.update(chunk);
              yield chunk;
            }
          },
          createWriteStream(tmp),
        );
      } catch (err) {
        await rm(tmp, { force: true });
        if (err === tooLarge) return { ok: false, reason: "size" };
        throw err;
      }
      const part: StoredPart = { number: partNumber, size, etag: md5.digest("hex"), sha256Base64: sha256.digest("base64") };
      const refused = size !== expected.size ? "size" : expected.sha256Base64 && expected.sha256Base64 !== part.sha256Base64 ? "checksum" : null;
      if (refused) {
        await rm(tmp, { force: true });
        return { ok: false, reason: refused };
      }
      await rename(tmp, target);
      await writeFile(`${target}.json`, JSON.stringify(part));
      return { ok: true, part };
    },

    async completeUpload(objectPath, partNumbers, sha256Base64) {
      const dir = partsDir(objectPath);
      const stored = new Map((await listParts(objectPath)).map((p) => [p.number, p]));
      if (partNumbers.some((n) => !stored.has(n))) return { ok: false, reason: "missing_part" };
      const target = objectFile(objectPath);
      await mkdir(path.dirname(target), { recursive: true });
      const tmp = tmpName(target);
      const sha256 = createHash("sha256");
      const etags = createHash("md5");
      let size = 0;
      const out = await open(tmp, "w");
      try {
        for (const n of partNumbers) {
          for await (const chunk of createReadStream(path.join(dir, String(n))) as AsyncIterable<Buffer>) {
            sha256.update(chunk);
            size += chunk.length;
            await out.write(chunk);
          }
          etags.update(Buffer.from(stored.get(n)?.etag ?? "", "hex"));
        }
        await out.close();
      } catch (err) {
        await out.close().catch(() => {});
        await rm(tmp, { force: true });
        throw err;
      }
      const digest = sha256.digest();
      if (sha256Base64 !== null && digest.toString("base64") !== sha256Base64) {
        await rm(tmp, { force: true });
        return { ok: false, reason: "checksum_mismatch" };
      }
      await rename(tmp, target);
      await rm(dir, { recursive: true, force: true });
      return { ok: true, object: { size, sha256: digest, etag: `${etags.digest("hex")}-${partNumbers.length}` } };
    },

    async discard(objectPath) {
      await rm(objectFile(objectPath), { force: true });
      await rm(partsDir(objectPath), { recursive: true, force: true });
    },

    async read(objectPath) {
      const file = objectFile(objectPath);
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) return null;
      return { size: info.size, stream: createReadStream(file) };
    },
  };
}
