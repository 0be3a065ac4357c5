// GET /api/reference (an API reference page) and GET /api/openapi.json (the document it renders).
// The document is better-auth's generated schema with its paths moved under /api/auth; /v1 joins later.
import type { FastifyInstance } from "fastify";
import { AUTH_BASE_PATH, type Auth } from "../auth/index.js";

type OpenApiDoc = { paths?: Record<string, Record<string, { summary?: string; description?: string }>> } & Record<
  string,
  unknown
>;

async function buildDocument(auth: Auth, baseURL: string): Promise<OpenApiDoc> {
  const generated = (await auth.api.generateOpenAPISchema()) as unknown as OpenApiDoc;
  const paths: NonNullable<OpenApiDoc["paths"]> = {};
  for (const [p, ops] of Object.entries(generated.paths ?? {})) paths[`${AUTH_BASE_PATH}${p}`] = ops;
  return {
    ...generated,
    info: { title: "till API", version: "1", description: "Accounts and organizations (/api/auth)." },
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

export function referencePlugin(auth: Auth, baseURL: string) {
  return async function reference(app: FastifyInstance): Promise<void> {
    let doc: Promise<OpenApiDoc> | undefined;
    const get = () => (doc ??= buildDocument(auth, baseURL));
    app.get("/api/openapi.json", async () => get());
    app.get("/api/reference", async (_req, reply) => reply.type("text/html; charset=utf-8").send(page(await get())));
  };
}
