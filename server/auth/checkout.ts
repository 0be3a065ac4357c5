// POST /api/auth/checkout — the product's checkout request (the spec's "Checkout request" entity and Checkout call),
// the endpoint @polar-sh/better-auth's checkout plugin offers, served by till itself: it opens a checkout for the
// signed-in user (or an anonymous visitor) and answers {url, redirect}. Errors carry a message the product shows to the
// user as is.
//
// The request names products, not an organization: the products name their seller, and must all be sold
// by the same one. `slug` is accepted as another way to name one product by its id (till products have no
// slug of their own); `referenceId` becomes the checkout's external customer id and metadata.referenceId.
import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthEndpoint, getSessionFromCtx } from "better-auth/api";
import { z } from "zod";
import type { Config } from "../config.js";
import type { Db } from "../db/client.js";
import { isUuid } from "../billing/http.js";
import { ApiError, type ValidationIssue } from "../billing/errors.js";
import { CheckoutCreateInput } from "../billing/checkouts/input.js";
import { createCheckout, organizationOfProducts } from "../billing/checkouts/create.js";
import { serverPaymentProcessor } from "../payments/index.js";

const metadataValue = z.union([z.string().max(500), z.number(), z.boolean()]);

const CheckoutRequest = z.object({
  products: z.union([z.string(), z.array(z.string()).min(1).max(100)]).optional(),
  slug: z.string().max(256).optional(),
  referenceId: z.string().min(1).max(256).optional(),
  customFieldData: z.record(z.string(), metadataValue).optional(),
  metadata: z.record(z.string().max(40), metadataValue).optional(),
  allowDiscountCodes: z.coerce.boolean().optional(),
  discountId: z.string().optional(),
  redirect: z.coerce.boolean().optional(),
  embedOrigin: z.url().optional(),
  successUrl: z.string().max(2048).optional(),
  returnUrl: z.string().max(2048).optional(),
  allowTrial: z.boolean().optional(),
  trialInterval: z.enum(["day", "week", "month", "year"]).optional(),
  trialIntervalCount: z.int().min(1).max(1000).optional(),
});

/** The first problem of a refused request, worded for the customer. */
function messageOf(err: ApiError): string {
  const detail = err.body.detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail) && detail.length > 0) {
    const first = detail[0] as ValidationIssue;
    const field = first.loc.filter((p) => p !== "body").join(".");
    return field ? `${first.msg} (${field})` : first.msg;
  }
  return "Checkout creation failed";
}

/** A relative URL ("/thanks") is the app's own page on till's base URL. */
function absolute(url: string | undefined, baseURL: string): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url, `${baseURL}/`).toString();
  } catch {
    throw new APIError("BAD_REQUEST", { message: "Invalid URL", code: "INVALID_URL" });
  }
}

export function tillCheckout(deps: { db: Db; config: Config; secret: string }) {
  const processor = serverPaymentProcessor(deps.config, deps.secret);
  const checkout = createAuthEndpoint(
    "/checkout",
    {
      method: "POST",
      body: CheckoutRequest,
      metadata: {
        openapi: {
          operationId: "checkout",
          description: "Open a checkout for the signed-in user (or a visitor) and answer its URL",
        },
      },
    },
    async (ctx) => {
      const body = ctx.body;
      const ids = body.slug !== undefined ? [body.slug] : typeof body.products === "string" ? [body.products] : (body.products ?? []);
      if (body.slug !== undefined && !isUuid(body.slug)) throw new APIError("BAD_REQUEST", { message: "Product not found", code: "PRODUCT_NOT_FOUND" });
      if (ids.length === 0) throw new APIError("BAD_REQUEST", { message: "Products are required", code: "PRODUCTS_REQUIRED" });
      const session = await getSessionFromCtx(ctx);
      const user = session?.user as { id: string; email: string; name: string; isAnonymous?: boolean | null } | undefined;
      const signedIn = user && !user.isAnonymous ? user : undefined;
      const metadata = body.referenceId ? { ...body.metadata, referenceId: body.referenceId } : body.metadata;
      try {
        const organizationId = await organizationOfProducts(deps.db, ids);
        const input = CheckoutCreateInput.parse({
          products: ids,
          external_customer_id: body.referenceId ?? user?.id ?? null,
          customer_email: signedIn?.email ?? null,
          customer_name: signedIn?.name || null,
          metadata,
          custom_field_data: body.customFieldData,
          allow_discount_codes: body.allowDiscountCodes ?? true,
          discount_id: body.discountId ?? null,
          embed_origin: body.embedOrigin ?? null,
          success_url: absolute(body.successUrl, deps.config.baseURL) ?? null,
          return_url: absolute(body.returnUrl, deps.config.baseURL) ?? null,
          allow_trial: body.allowTrial ?? true,
          trial_interval: body.trialInterval ?? null,
          trial_interval_count: body.trialIntervalCount ?? null,
        });
        const created = await createCheckout({ db: deps.db, baseURL: deps.config.baseURL, processor, reviewRequired: deps.config.organizations.reviewRequired }, organizationId, input);
        return ctx.json({ url: created.url, redirect: body.redirect ?? true });
      } catch (err) {
        if (err instanceof ApiError) throw new APIError("BAD_REQUEST", { message: messageOf(err), code: "CHECKOUT_REFUSED" });
        if (err instanceof z.ZodError) {
          const issue = err.issues[0];
          throw new APIError("BAD_REQUEST", { message: issue ? `${issue.message} (${issue.path.join(".")})` : "Invalid checkout request", code: "CHECKOUT_REFUSED" });
        }
        throw err;
      }
    },
  );
  return { id: "till-checkout", endpoints: { checkout } } satisfies BetterAuthPlugin;
}
