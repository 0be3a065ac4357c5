// /v1/files: list, create (→ presigned part URLs), uploaded, update, delete (Polar wire), plus the two routes
// the presigned URLs and public_url point at: PUT a part (token in the URL) and GET a public file's bytes.
import path from "node:path";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { contentDisposition } from "../../http/content-disposition.js";
import { LARGE_BODY_LIMIT } from "../../http/input-guard.js";
import { page, paginationQuery, pathId, queryArray } from "../http.js";
import { invalid, notFound, notPermitted, validationError } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import * as service from "./service.js";
import { localFileStorage } from "./storage.js";
import { route, type V1App } from "../contract.js";

const ListQuery = z.object({
  organization_id: queryArray(z.guid({ message: "Input should be a valid UUID" })).optional(),
  ids: queryArray(z.guid({ message: "Input should be a valid UUID" })).optional(),
  ...paginationQuery,
});

export function fileRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const storage = localFileStorage(path.join(config.dataDir, "files"));
  const baseURL = config.baseURL;

  app.get("/files/", route({ scope: "files:read", operationId: "files:list", query: ListQuery, responses: { 200: "ListResourceFileRead", 422: validationError } }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (q.organization_id && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) return page([], 0, q.limit);
    const ids = q.ids?.map((id) => id.toLowerCase());
    const { items, total } = await service.listFiles(db, organizationId, { ids }, q.page, q.limit, baseURL);
    return page(items, total, q.limit);
  });

  app.post("/files/", route({
    scope: "files:write", bodyLimit: LARGE_BODY_LIMIT, operationId: "files:create", body: service.FileCreateInput,
    responses: { 201: "FileUpload", 422: validationError },
  }), async (req, reply) => {
    const input = req.body;
    return reply.status(201).send(await service.createFile(db, scopeOf(req).organizationId, input, baseURL));
  });

  app.post("/files/:id/uploaded", route({
    scope: "files:write", bodyLimit: LARGE_BODY_LIMIT, operationId: "files:uploaded",
    body: service.FileUploadCompletedInput,
    responses: { 200: "FilesUploadedResponseFilesUploaded", 403: notPermitted, 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    const input = req.body;
    return service.completeUpload(db, storage, scopeOf(req).organizationId, id, input, baseURL);
  });

  app.patch("/files/:id", route({
    scope: "files:write", operationId: "files:update", body: service.FilePatchInput,
    responses: { 200: "FilesUpdateResponseFilesUpdate", 403: notPermitted, 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    return service.updateFile(db, scopeOf(req).organizationId, id, req.body, baseURL);
  });

  app.delete("/files/:id", route({ scope: "files:write", operationId: "files:delete", responses: { 204: null, 403: notPermitted, 404: notFound, 422: validationError } }), async (req, reply) => {
    await service.deleteFile(db, storage, scopeOf(req).organizationId, pathId(req));
    return reply.status(204).send();
  });

  app.get("/files/:id/public", route({ caller: "none", operationId: "till:files:public", responses: { 200: "application/octet-stream", 404: notFound, 422: validationError } }), async (req, reply) => {
    const { row, size, stream } = await service.openPublicFile(db, storage, pathId(req));
    return reply
      .header("content-type", row.mimeType)
      .header("content-length", size)
      // the bytes behind a file id never change once uploaded
      .header("cache-control", "public, max-age=31536000, immutable")
      .header("etag", `"${row.checksumEtag ?? row.id}"`)
      .send(stream);
  });

  // a customer's downloadable file, through the signed URL the customer portal hands out
  app.get("/files/:id/download", route({
    caller: "client_secret", operationId: "till:files:download",
    responses: { 200: "application/octet-stream", 403: notPermitted, 404: notFound },
  }), async (req, reply) => {
    const { row, size, stream } = await service.openSignedDownload(db, storage, secret, String((req.params as { id?: unknown }).id ?? ""), req.query as Record<string, unknown>);
    return reply
      .header("content-type", row.mimeType)
      .header("content-length", size)
      .header("content-disposition", contentDisposition("attachment", row.name))
      .header("cache-control", "private, no-store")
      .header("x-content-type-options", "nosniff")
      .send(stream);
  });

  // The part body is raw bytes of any content type, streamed to storage rather than parsed.
  void app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser("*", (_req, _payload, done) => done(null));
    raw.put("/files/:id/parts/:number", route({
      caller: "client_secret", operationId: "till:files:upload_part",
      responses: { 200: null, 403: notPermitted, 404: notFound, 422: validationError },
    }), async (req, reply) => {
      const id = pathId(req);
      const number = Number((req.params as { number?: string }).number);
      if (!Number.isInteger(number) || number < 1) throw invalid(["path", "number"], "Input should be a valid integer");
      const { token } = req.query as { token?: string | string[] };
      const header = req.headers["x-amz-checksum-sha256"];
      const etag = await service.uploadPart(
        db,
        storage,
        id,
        number,
        typeof token === "string" ? token : undefined,
        req.raw,
        typeof header === "string" ? header : undefined,
      );
      return reply.header("etag", `"${etag}"`).status(200).send();
    });
  });
}
