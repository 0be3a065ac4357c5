// GET /api/reference (an API reference page) and GET /api/openapi.json (the document it renders).
// The document is better-auth's generated schema with its paths moved under /api/auth; /v1 joins later.
import type { FastifyInstance } from "fastify";
import { AUTH_BASE_PATH, type Auth } from "../auth/index.js";
import type { V1Route } from "../billing/deps.js";
import { IDEMPOTENCY_PARAMETER, takesIdempotencyKey } from "./idempotency.js";

type Operation = { summary?: string; description?: string; parameters?: unknown[] };
type OpenApiDoc = { paths?: Record<string, Record<string, Operation>> } & Record<string, unknown>;

/** Declares the Idempotency-Key header on each operation that takes it (server/http/idempotency.ts). */
function withIdempotencyKey(paths: NonNullable<OpenApiDoc["paths"]>): void {
  for (const [p, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (takesIdempotencyKey(method.toUpperCase(), p)) ops[method] = { ...op, parameters: [...(op.parameters ?? []), IDEMPOTENCY_PARAMETER] };
    }
  }
}

async function buildDocument(auth: Auth, baseURL: string, v1Routes: readonly V1Route[]): Promise<OpenApiDoc> {
  const generated = (await auth.api.generateOpenAPISchema()) as unknown as OpenApiDoc;
  const paths: NonNullable<OpenApiDoc["paths"]> = {};
  for (const [p, ops] of Object.entries(generated.paths ?? {})) paths[`${AUTH_BASE_PATH}${p}`] = ops;
  // /v1 follows Polar's API (its reference documents the bodies); list what till serves
  for (const route of v1Routes) {
    const p = route.url.replace(/:([a-z_]+)/g, "{$1}");
    paths[p] = { ...paths[p], [route.method.toLowerCase()]: { summary: "Polar-compatible billing API" } };
  }
  withIdempotencyKey(paths);
  return {
    ...generated,
    info: {
      title: "till API",
      version: "1",
      description: "Accounts and organizations (/api/auth); the billing API (/v1), wire-compatible with Polar's.",
    },
    servers: [{ url: baseURL }],
    paths,
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] ?? c);

function page(doc: OpenApiDoc): string {
  const rows = Object.entries(doc.paths ?? {})
    .flatMap(([p, ops]) =>
      Object.entries(ops).map(
        ([method, op]) =>
          `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escapeHtml(p)}</code></td><td>${escapeHtml(op.summary ?? op.description ?? "")}</td></tr>`,
      ),
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>till API reference</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem}table{border-collapse:collapse;width:100%}td{border-bottom:1px solid #8884;padding:.3rem .5rem;vertical-align:top}</style>
</head><body><h1>till API reference</h1>
<p>The machine-readable document is at <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3).</p>
<table><thead><tr><th>Method</th><th>Path</th><th>Summary</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>
`;
}

export function referencePlugin(auth: Auth, baseURL: string, v1Routes: readonly V1Route[] = []) {
  return async function reference(app: FastifyInstance): Promise<void> {
    let doc: Promise<OpenApiDoc> | undefined;
    // built on first use, after every plugin (and so every /v1 route) is registered
    const get = () => (doc ??= buildDocument(auth, baseURL, v1Routes));
    app.get("/api/openapi.json", async () => get());
    app.get("/api/reference", async (_req, reply) => reply.type("text/html; charset=utf-8").send(page(await get())));
  };
}
