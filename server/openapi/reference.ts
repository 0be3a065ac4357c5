// GET /api/openapi.json (the document, generated: server/openapi/openapi.ts) and GET /api/reference, Scalar's API
// reference rendering it; the viewer's script is served from the package itself (/api/reference/js/scalar.js),
// never from a CDN, so the page works offline.
import scalarReference from "@scalar/fastify-api-reference";
import type { FastifyInstance } from "fastify";
import type { Auth } from "../auth/index.js";
import { mergedDocument, type OpenApiDoc } from "./openapi.js";

export function referencePlugin(auth: Auth, v1Document: () => Promise<OpenApiDoc>) {
  return async function reference(app: FastifyInstance): Promise<void> {
    let doc: Promise<OpenApiDoc> | undefined;
    // built on first use, after every plugin (and so every /v1 route) is registered
    const get = () => (doc ??= mergedDocument(v1Document, auth).catch((err: unknown) => {
      doc = undefined;
      throw err;
    }));
    app.get("/api/openapi.json", async () => get());
    await app.register(scalarReference, {
      routePrefix: "/api/reference",
      configuration: {
        url: "/api/openapi.json",
        title: "till API reference",
        // Scalar's fonts come from its CDN by default; the system's fonts keep the page offline
        withDefaultFonts: false,
        hideClientButton: true,
        telemetry: false,
        // the "Ask AI" agent and its API registry search call Scalar's servers; the page stays offline
        agent: { disabled: true },
        // its developer toolbar (shown on localhost) offers to share or deploy the document through Scalar's servers
        showDeveloperTools: "never",
        // the operations' "Try it" starts with the organization token filled in, not with no authentication
        authentication: { preferredSecurityScheme: "organization_token" },
      },
    });
  };
}
