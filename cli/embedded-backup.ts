// The file `till admin backup` writes and `till admin restore` reads: an embedded server's data directory in one
// file. Line 1 names the format and its version, line 2 is a JSON manifest (when, which till, and each entry's
// path, size and SHA-256), then the entries' bytes one after the other: the database as PGlite's own dump
// (`dumpDataDir`, a gzipped tar), the generated server secret, the stored files (product downloads, invoices).
// Every entry is checked against its size and hash before anything is restored. The dev mailbox is not kept.
import { createHash } from "node:crypto";
import { closeSync, type Dirent, fstatSync, openSync, readdirSync, readFileSync, readSync, writeSync } from "node:fs";
import path from "node:path";

const MAGIC = "till-embedded-backup";
const VERSION = 1;
/** A manifest past this is not one of ours (thousands of files fit in far less). */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** The database entry's name; the others are the data directory's own paths. */
export const DATABASE_ENTRY = "pglite.tar.gz";
export const SECRET_ENTRY = "auth-secret";
export const FILES_DIR = "files";

export interface BackupEntry {
  path: string;
  bytes: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof MAGIC;
  version: number;
  created_at: string;
  till_version: string;
  entries: BackupEntry[];
}

export class BadBackupError extends Error {}

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/** Every file under `dir` as paths relative to `base`, with "/" separators (none when `dir` is missing). */
export function filesUnder(base: string, dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(path.join(base, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => {
      const rel = `${dir}/${e.name}`;
      return e.isDirectory() ? filesUnder(base, rel) : e.isFile() ? [rel] : [];
    });
}

/**
 * Writes the backup to the open file `fd`: the database dump and each listed file of `dataDir`, each read when
 * written (one file in memory at a time).
 */
export function writeBackup(fd: number, opts: { dump: Uint8Array; dataDir: string; paths: string[]; tillVersion: string }): BackupManifest {
  const read = (p: string) => (p === DATABASE_ENTRY ? opts.dump : readFileSync(path.join(opts.dataDir, ...p.split("/"))));
  const entries = [DATABASE_ENTRY, ...opts.paths].map((p) => {
    const data = read(p);
    return { path: p, bytes: data.byteLength, sha256: sha256(data) };
  });
  const manifest: BackupManifest = { format: MAGIC, version: VERSION, created_at: new Date().toISOString(), till_version: opts.tillVersion, entries };
  writeSync(fd, `${MAGIC} ${VERSION}\n${JSON.stringify(manifest)}\n`);
  for (const entry of entries) {
    const data = read(entry.path);
    // a file changed between the two reads (the server is stopped: nothing should write there)
    if (data.byteLength !== entry.bytes || sha256(data) !== entry.sha256) throw new Error(`${entry.path} changed while it was backed up`);
    writeSync(fd, data);
  }
  return manifest;
}

/** Reads exactly `length` bytes at `position`, or fails as a truncated backup. */
function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, position + done);
    if (n === 0) throw new BadBackupError("the file ends early (a backup cut short?)");
    done += n;
  }
  return buf;
}

function validPath(p: string): boolean {
  if (p === DATABASE_ENTRY || p === SECRET_ENTRY) return true;
  const parts = p.split("/");
  return parts[0] === FILES_DIR && parts.length > 1 && parts.every((s) => s !== "" && s !== "." && s !== ".." && !s.includes("\\") && !s.includes("\0"));
}

function parseManifest(text: string): BackupManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new BadBackupError("its manifest is not JSON");
  }
  const m = raw as Partial<BackupManifest> | null;
  const entries = Array.isArray(m?.entries) ? m.entries : null;
  if (!m || m.format !== MAGIC || typeof m.created_at !== "string" || typeof m.till_version !== "string" || !entries) {
    throw new BadBackupError("its manifest lacks the format, the date, the till version or the entries");
  }
  for (const e of entries as unknown[]) {
    const entry = e as Partial<BackupEntry> | null;
    const ok =
      typeof entry?.path === "string" && validPath(entry.path) && Number.isSafeInteger(entry.bytes) && (entry.bytes ?? -1) >= 0 && /^[0-9a-f]{64}$/.test(entry.sha256 ?? "");
    if (!ok) throw new BadBackupError("an entry of its manifest is not a path inside the data directory with a size and a SHA-256");
  }
  if (entries[0]?.path !== DATABASE_ENTRY) throw new BadBackupError("it holds no database");
  return { format: MAGIC, version: VERSION, created_at: m.created_at, till_version: m.till_version, entries };
}

/** An opened backup: its manifest, checked, and each entry's bytes on demand (checked against size and hash). */
export interface OpenedBackup {
  manifest: BackupManifest;
  read(entry: BackupEntry): Buffer;
  close(): void;
}

/** Opens and checks a backup file: its format, its manifest, its length, and every entry's hash. */
export function openBackup(file: string): OpenedBackup {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const head = readAt(fd, 0, Math.min(size, MAGIC.length + 16)).toString("latin1");
    const firstLine = head.split("\n")[0] ?? "";
    if (!firstLine.startsWith(`${MAGIC} `)) throw new BadBackupError(`it is not a till backup (it does not start with "${MAGIC}")`);
    if (firstLine !== `${MAGIC} ${VERSION}`) throw new BadBackupError(`it is a backup of a format this till does not read (${firstLine}); use a newer till`);
    const start = firstLine.length + 1;
    const probe = readAt(fd, start, Math.min(size - start, MAX_MANIFEST_BYTES));
    const end = probe.indexOf(0x0a);
    if (end < 0) throw new BadBackupError("its manifest does not end");
    const manifest = parseManifest(probe.subarray(0, end).toString("utf8"));
    const offsets = new Map<BackupEntry, number>();
    let at = start + end + 1;
    for (const entry of manifest.entries) {
      offsets.set(entry, at);
      at += entry.bytes;
    }
    if (at !== size) throw new BadBackupError(at > size ? "the file ends early (a backup cut short?)" : "the file goes on past its last entry");
    const read = (entry: BackupEntry) => {
      const data = readAt(fd, offsets.get(entry) ?? 0, entry.bytes);
      if (sha256(data) !== entry.sha256) throw new BadBackupError(`${entry.path} does not match its SHA-256 (the file is damaged)`);
      return data;
    };
    for (const entry of manifest.entries) read(entry);
    return { manifest, read, close: () => closeSync(fd) };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}
