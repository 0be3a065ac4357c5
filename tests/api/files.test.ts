// /v1/files through @polar-sh/sdk 0.47.1 (and 0.49.0): create → PUT the parts to till's presigned URLs →
// uploaded, list, update, delete; the public route of product media; validation, scopes and tenancy.
import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { file as fileTable } from "../../server/db/schema/index.js";
import { planParts as plan, putParts, sha256Base64 as sha256, uploadFile } from "../helpers/files.js";
import { locs, rawRequest } from "../helpers/api.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "files");
  other = await createSeller(server, "other");
});
afterAll(async () => server?.close());

const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);


const image = Buffer.from(Array.from({ length: 2500 }, (_, i) => (i * 7) % 256));

describe("/v1/files", () => {
  it("creates an upload whose presigned parts point at till, takes the bytes and completes it", async () => {
    const upload = await seller.sdk.files.create({
      name: "Cover.PNG",
      mimeType: "image/png",
      size: image.length,
      checksumSha256Base64: sha256(image),
      upload: { parts: plan(image, 1024) },
      service: "product_media",
      version: "v1",
    });
    expect(upload).toMatchObject({
      organizationId: seller.organizationId,
      name: "Cover.PNG",
      mimeType: "image/png",
      size: 2500,
      isUploaded: false,
      service: "product_media",
      version: "v1",
      sizeReadable: "2.4 KB",
    });
    expect(upload.path).toBe(`${seller.organizationId}/${upload.id}.png`);
    expect(upload.upload.path).toBe(upload.path);
    expect(upload.upload.parts.map((p) => [p.number, p.chunkStart, p.chunkEnd])).toEqual([
      [1, 0, 1023],
      [2, 1024, 2047],
      [3, 2048, 2499],
    ]);
    for (const p of upload.upload.parts) {
      expect(p.url.startsWith(`${server.config.baseURL}/v1/files/${upload.id}/parts/${p.number}?token=`)).toBe(true);
      expect(p.expiresAt.getTime()).toBeGreaterThan(Date.now());
      expect(p.headers).toEqual({ "x-amz-checksum-sha256": p.checksumSha256Base64 });
    }

    const parts = await putParts(upload, image);
    const done = await seller.sdk.files.uploaded({
      id: upload.id,
      fileUploadCompleted: { id: upload.upload.id, path: upload.path, parts },
    });
    const hex = createHash("sha256").update(image).digest("hex");
    expect(done).toMatchObject({
      id: upload.id,
      isUploaded: true,
      service: "product_media",
      checksumSha256Base64: sha256(image),
      checksumSha256Hex: hex,
      sizeReadable: "2.4 KB",
    });
    expect(done.lastModifiedAt).toBeInstanceOf(Date);
    expect(done.checksumEtag).toMatch(/^[0-9a-f]{32}-3$/);
    if (done.service !== "product_media") throw new Error("expected product media");
    expect(done.publicUrl).toBe(`${server.config.baseURL}/v1/files/${upload.id}/public`);

    // the public URL serves the bytes without any token
    const pub = await fetch(done.publicUrl);
    expect(pub.status).toBe(200);
    expect(pub.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await pub.arrayBuffer()).equals(image)).toBe(true);
    // stored under <TILL_DATA_DIR>/files/<path>, the parts gone
    const dir = path.join(server.config.dataDir, "files", seller.organizationId);
    expect(await readdir(dir)).toContain(`${upload.id}.png`);

    // completing again answers the same
    const again = await seller.sdk.files.uploaded({
      id: upload.id,
      fileUploadCompleted: { id: upload.upload.id, path: upload.path, parts },
    });
    expect(again.checksumEtag).toBe(done.checksumEtag);
  });

  it("formats sizes like Polar", async () => {
    const tiny = Buffer.from("hello");
    const f = await uploadFile(seller.sdk, "notes.txt", tiny, "downloadable");
    expect(f.sizeReadable).toBe("5.0 B");
    expect(f.service).toBe("downloadable");
    expect("publicUrl" in f).toBe(false);
    // a downloadable is never public
    expect((await fetch(`${server.url}/v1/files/${f.id}/public`)).status).toBe(404);
    // parts larger than the JSON body limit stream straight to storage
    const big = Buffer.alloc(1536 * 1024, 7);
    const up = await seller.sdk.files.create({
      name: "big.png",
      mimeType: "image/png",
      size: big.length,
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: big.length - 1 }] },
      service: "product_media",
    });
    const parts = await putParts(up, big);
    const done = await seller.sdk.files.uploaded({ id: up.id, fileUploadCompleted: { id: up.upload.id, path: up.path, parts } });
    expect(done.sizeReadable).toBe("1.5 MB");
  });

  it("refuses parts with a bad token, an expired URL, the wrong size or checksum", async () => {
    const bytes = Buffer.from("x".repeat(100));
    const upload = await seller.sdk.files.create({
      name: "doc.pdf",
      mimeType: "application/pdf",
      size: 100,
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: 99, checksumSha256Base64: sha256(bytes) }] },
      service: "downloadable",
    });
    const url = upload.upload.parts[0]?.url ?? "";
    const put = (u: string, body: Buffer, headers: Record<string, string> = {}) => fetch(u, { method: "PUT", body: new Uint8Array(body), headers });

    expect((await put(url.replace(/token=[^&]+/, "token=forged"), bytes)).status).toBe(403);
    expect((await put(url.replace(/\?.*$/, ""), bytes)).status).toBe(403);
    expect((await put(url.replace("/parts/1", "/parts/2"), bytes)).status).toBe(422);
    expect((await put(url, Buffer.from("y".repeat(101)))).status).toBe(422);
    expect((await put(url, Buffer.from("y".repeat(99)))).status).toBe(422);
    const wrongSum = await put(url, Buffer.from("y".repeat(100)));
    expect(wrongSum.status).toBe(422);

    // nothing was taken, so completing says the part is missing
    const early = await raw(seller.token, "POST", `/v1/files/${upload.id}/uploaded`, {
      id: upload.upload.id,
      path: upload.path,
      parts: [{ number: 1, checksum_etag: "abc", checksum_sha256_base64: null }],
    });
    expect(early.status).toBe(422);
    expect(locs(early.body)).toEqual([["body", "parts", 0]]);

    // move the clock: the URL expires
    const [row] = await server.database.db.select().from(fileTable).where(eq(fileTable.id, upload.id));
    if (!row?.upload) throw new Error("no upload state");
    await server.database.db
      .update(fileTable)
      .set({ upload: { ...row.upload, expires_at: new Date(Date.now() - 1000).toISOString() } })
      .where(eq(fileTable.id, upload.id));
    const expired = await put(url, bytes);
    expect(expired.status).toBe(403);
    expect(await expired.json()).toMatchObject({ error: "NotPermitted", detail: "The upload URL has expired." });
  });

  it("checks the completion against what was uploaded", async () => {
    const bytes = Buffer.from("0123456789".repeat(30));
    const upload = await seller.sdk.files.create({
      name: "a.pdf",
      mimeType: "application/pdf",
      size: bytes.length,
      checksumSha256Base64: sha256(bytes),
      upload: { parts: plan(bytes, 200).map((p) => ({ ...p, checksumSha256Base64: null })) },
      service: "downloadable",
    });
    const parts = await putParts(upload, bytes);
    const complete = (body: unknown) => raw(seller.token, "POST", `/v1/files/${upload.id}/uploaded`, body);
    const wire = parts.map((p) => ({ number: p.number, checksum_etag: p.checksumEtag, checksum_sha256_base64: null }));
    expect((await complete({ id: "other-upload", path: upload.path, parts: wire })).status).toBe(422);
    expect((await complete({ id: upload.upload.id, path: "elsewhere", parts: wire })).status).toBe(422);
    expect((await complete({ id: upload.upload.id, path: upload.path, parts: wire.slice(0, 1) })).status).toBe(422);
    const badEtag = await complete({ id: upload.upload.id, path: upload.path, parts: [{ ...wire[0], checksum_etag: '"00"' }, wire[1]] });
    expect(badEtag.status).toBe(422);
    expect(locs(badEtag.body)).toEqual([["body", "parts", 0, "checksum_etag"]]);
    expect((await complete({ id: upload.upload.id, path: upload.path })).status).toBe(422);
    // still pending: not listed
    const listed = await seller.sdk.files.list({ ids: [upload.id] });
    expect(listed.result.items).toEqual([]);
    const ok = await complete({ id: upload.upload.id, path: upload.path, parts: wire });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ is_uploaded: true, size: 300 });
  });

  it("refuses a completed file whose bytes differ from the declared checksum", async () => {
    const bytes = Buffer.from("abcdef");
    const upload = await seller.sdk.files.create({
      name: "b.pdf",
      mimeType: "application/pdf",
      size: 6,
      checksumSha256Base64: sha256(Buffer.from("ABCDEF")),
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: 5 }] },
      service: "downloadable",
    });
    const parts = await putParts(upload, bytes);
    const res = await raw(seller.token, "POST", `/v1/files/${upload.id}/uploaded`, {
      id: upload.upload.id,
      path: upload.path,
      parts: parts.map((p) => ({ number: p.number, checksum_etag: p.checksumEtag, checksum_sha256_base64: null })),
    });
    expect(res.status).toBe(422);
    const list = await seller.sdk.files.list({ ids: [upload.id] });
    expect(list.result.items).toEqual([]);
  });

  it("refuses invalid creates with 422", async () => {
    const good = {
      name: "c.png",
      mime_type: "image/png",
      size: 10,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 9 }] },
      service: "product_media",
    };
    const cases: Array<[Record<string, unknown>, unknown[]]> = [
      [{ ...good, mime_type: "application/pdf" }, ["body", "mime_type"]],
      [{ ...good, size: 11 * 1024 * 1024, upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 11 * 1024 * 1024 - 1 }] } }, ["body", "size"]],
      [{ ...good, service: "avatar" }, ["body", "service"]],
      [{ ...good, size: 1.5 }, ["body", "size"]],
      [{ ...good, upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 8 }] } }, ["body", "upload", "parts"]],
      [{ ...good, upload: { parts: [{ number: 1, chunk_start: 1, chunk_end: 9 }] } }, ["body", "upload", "parts", 0]],
      [{ ...good, upload: { parts: [] } }, ["body", "upload", "parts"]],
      [{ ...good, checksum_sha256_base64: "nope" }, ["body", "checksum_sha256_base64"]],
      [{ ...good, service: "organization_avatar", size: 2 * 1024 * 1024, upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 2 * 1024 * 1024 - 1 }] } }, ["body", "size"]],
    ];
    for (const [body, loc] of cases) {
      const res = await raw(seller.token, "POST", "/v1/files/", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(locs(res.body)).toContainEqual(loc);
    }
    expect((await raw(seller.token, "GET", "/v1/files/?ids=zzz")).status).toBe(422);
    expect((await raw(seller.token, "GET", "/v1/files/?limit=101")).status).toBe(422);
  });

  it("lists uploaded files with ids filter and pagination, updates and deletes (0.47.1 and 0.49.0)", async () => {
    const a = await uploadFile(seller.sdk, "one.png", Buffer.from("one"));
    const b = await uploadFile(seller.sdk, "two.png", Buffer.from("two"));
    const page = await seller.sdk.files.list({ ids: [a.id, b.id] });
    // newest first
    expect(page.result.items.map((f) => f.id)).toEqual([b.id, a.id]);
    expect(page.result.pagination).toEqual({ totalCount: 2, maxPage: 1 });
    const one = await seller.sdk.files.list({ limit: 1 });
    expect(one.result.items).toHaveLength(1);
    const all = await seller.sdk049.files.list({ organizationId: seller.organizationId, limit: 100 });
    expect(all.result.items.map((f) => f.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(all.result.items.every((f) => f.isUploaded)).toBe(true);

    const created049 = await seller.sdk049.files.create({
      name: "z.png",
      mimeType: "image/png",
      size: 3,
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: 2 }] },
      service: "product_media",
    });
    expect(created049.isUploaded).toBe(false);
    // not uploaded yet: nothing to serve
    expect((await fetch(`${server.url}/v1/files/${created049.id}/public`)).status).toBe(404);

    const renamed = await seller.sdk.files.update({ id: a.id, filePatch: { name: "renamed.png", version: "2" } });
    expect(renamed).toMatchObject({ name: "renamed.png", version: "2" });
    const cleared = await seller.sdk.files.update({ id: a.id, filePatch: { version: null } });
    expect(cleared).toMatchObject({ name: "renamed.png", version: null });

    await seller.sdk.files.delete({ id: b.id });
    expect((await seller.sdk.files.list({ ids: [b.id] })).result.items).toEqual([]);
    expect((await fetch(`${server.url}/v1/files/${b.id}/public`)).status).toBe(404);
    expect((await raw(seller.token, "DELETE", `/v1/files/${b.id}`)).status).toBe(404);
    expect((await raw(seller.token, "PATCH", `/v1/files/${b.id}`, { name: "x" })).status).toBe(404);
  });

  it("enforces scopes", async () => {
    const readKey = await seller.createKey({ files: ["read"] });
    const reader = sdkFor(server, readKey);
    expect((await reader.files.list({})).result.items.length).toBeGreaterThan(0);
    const body = { name: "k.png", mime_type: "image/png", size: 1, upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 0 }] }, service: "product_media" };
    expect((await raw(readKey, "POST", "/v1/files/", body)).status).toBe(403);
    const someFile = (await reader.files.list({})).result.items[0];
    expect((await raw(readKey, "DELETE", `/v1/files/${someFile?.id}`)).status).toBe(403);
    expect((await raw(readKey, "PATCH", `/v1/files/${someFile?.id}`, { name: "x" })).status).toBe(403);
    const noFiles = await seller.createKey({ products: ["read"] });
    expect((await raw(noFiles, "GET", "/v1/files/")).status).toBe(403);
  });

  it("keeps organizations apart", async () => {
    const mine = await uploadFile(seller.sdk, "mine.png", Buffer.from("mine"));
    const theirs = await other.sdk.files.list({});
    expect(theirs.result.items.find((f) => f.id === mine.id)).toBeUndefined();
    const asOther = await other.sdk.files.list({ ids: [mine.id] });
    expect(asOther.result.items).toEqual([]);
    await expect(other.sdk.files.update({ id: mine.id, filePatch: { name: "hijack" } })).rejects.toMatchObject({
      error: "ResourceNotFound",
    });
    expect((await raw(other.token, "DELETE", `/v1/files/${mine.id}`)).status).toBe(404);
    expect((await raw(other.token, "POST", `/v1/files/${mine.id}/uploaded`, { id: "x", path: "y", parts: [] })).status).toBe(422);
    expect(
      (await raw(other.token, "POST", `/v1/files/${mine.id}/uploaded`, { id: "x", path: "y", parts: [{ number: 1, checksum_etag: "e", checksum_sha256_base64: null }] }))
        .status,
    ).toBe(404);
    expect((await raw(seller.token, "GET", `/v1/files/?organization_id=${other.organizationId}`)).status).toBe(404);
    // the file is untouched
    expect((await seller.sdk.files.list({ ids: [mine.id] })).result.items[0]?.name).toBe("mine.png");
  });
});
