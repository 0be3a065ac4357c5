// Idempotency keys (the `Idempotency-Key` header on /v1 writes and POST /api/auth/checkout): the first answer to
// a key, kept 24 hours so a retry of the same request gets it again instead of doing the write twice. A row is
// `in_progress` (leased by the request running it) until the answer is stored, then `done`. Neither the key nor
// the caller's credential is kept in clear: `key_hash` is a SHA-256, and the answer's body is encrypted with a key
// derived from the server secret and the idempotency key (see server/http/idempotency.ts).
import { index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { createdAt, timestamptz } from "./columns.js";

export const idempotencyKey = pgTable(
  "idempotency_key",
  {
    /**
     * Whose keys these are: `organization:<id>`, `user:<id>`, `customer:<id>`, `checkout:<sha256 of the client
     * secret>`, `address:<ip>`.
     */
    scope: text("scope").notNull(),
    /** hex SHA-256 of the Idempotency-Key header's value */
    keyHash: text("key_hash").notNull(),
    /** hex SHA-256 of the method, the path with its query and the body's bytes: a repeat must match it */
    requestHash: text("request_hash").notNull(),
    method: text("method").notNull(),
    /**
     * The route's pattern (`/v1/checkouts/client/:client_secret/confirm`), never the path itself (it may carry a
     * credential).
     */
    route: text("route").notNull(),
    /** in_progress | done */
    status: text("status").notNull(),
    /**
     * An in_progress row's lease, renewed while its request runs; a lapsed lease (the process died) may be taken over.
     */
    lockedUntil: timestamptz("locked_until"),
    responseStatus: integer("response_status"),
    /** The headers replayed with the answer (content-type, location). */
    responseHeaders: jsonb("response_headers").$type<Record<string, string>>(),
    /** base64 of IV ‖ GCM tag ‖ AES-256-GCM ciphertext of the answer's body */
    responseBody: text("response_body"),
    createdAt: createdAt(),
    expiresAt: timestamptz("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.keyHash] }), index("idempotency_key_expires_idx").on(t.expiresAt)],
);
