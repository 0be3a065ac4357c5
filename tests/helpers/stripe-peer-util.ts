// What the Stripe stand-in's payment routes share: Stripe's timestamps and ids, and its 404 for an object it does not
// have.
import { randomBytes } from "node:crypto";
import { StripeFailure, type Params } from "./stripe-peer.js";

export const now = () => Math.floor(Date.now() / 1000);
export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;
export const noSuch = (what: string, id: string, param = "id") => new StripeFailure(404, { type: "invalid_request_error", code: "resource_missing", param, message: `No such ${what}: '${id}'` });
export const expands = (p: Params, field: string) => Array.isArray(p.expand) && p.expand.includes(field);
