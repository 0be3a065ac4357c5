// The invoices' own errors: an order that is not paid has none (409), and one without a billing name and address
// cannot have one made (422 MissingInvoiceBillingDetails, which Polar documents inside a union of the operation).
import { declareError, errorUnion } from "../errors.js";

export const notEligibleForInvoice = declareError({ status: 409, error: "OrderNotEligibleForInvoice", detail: "Only paid orders have an invoice." });

export const missingInvoiceBillingDetails = declareError({
  status: 422,
  error: "MissingInvoiceBillingDetails",
  detail: "The order needs a billing name and a billing address before its invoice can be generated.",
});

/** orders:generate_invoice's 422, as Polar names it. */
export const generateInvoiceRefused = errorUnion("OrdersGenerateInvoiceResponse422OrdersGenerateInvoice", [missingInvoiceBillingDetails]);
/** customer_portal:orders:generate_invoice's 422, as Polar names it. */
export const portalGenerateInvoiceRefused = errorUnion(
  "CustomerPortalOrdersGenerateInvoiceResponse422CustomerPortalOrdersGenerateInvoice",
  [missingInvoiceBillingDetails],
);
