// The portal's subscription changes (pages/PortalChange.tsx): the plans a subscription may change to, the preview
// of a change (till's POST /v1/customer-portal/subscriptions/{id}/preview, written nowhere) and the change itself,
// sent with the preview's proration_date so it bills exactly what the customer saw.
import { call, type PortalSubscription } from "./portal-api.js";

/** A public product of the seller (the portal's plan choice). */
export interface CatalogProduct {
  id: string;
  name: string;
  is_recurring: boolean;
  is_archived?: boolean;
  recurring_interval: string | null;
  recurring_interval_count?: number | null;
}

/** An add-on as the change asks for it: the whole set is sent, an add-on left out is removed. */
export interface AddOnChoice {
  product_id: string;
  quantity: number;
}

/** A change the portal previews and then sends: another plan, another number of seats, or the add-ons. */
export type SubscriptionChange = { product_id: string } | { seats: number } | { items: AddOnChoice[] };

/** An order a preview prices and writes nowhere (subscription-changes/preview.ts). */
export interface DraftOrder {
  currency: string;
  subtotal_amount: number;
  discount_amount: number;
  tax_amount: number;
  total_amount: number;
  applied_balance_amount: number;
  due_amount: number;
  items: Array<{ label: string; amount: number }>;
}

/** What a change would do: the order billed now, what is carried to the renewal, and the next renewal. */
export interface ChangePreview {
  proration_date: string;
  changes: boolean;
  order: DraftOrder | null;
  carried_forward: Array<{ label: string; amount: number }>;
  next_renewal: (DraftOrder & { renews_at: string }) | null;
}

export const changeApi = {
  /** The seller's public products (the plans a subscription may change to). */
  catalog: (slug: string) => call<{ products: CatalogProduct[] }>(null, "GET", `/organizations/${encodeURIComponent(slug)}`),
  /** What the change would bill, written nowhere; its proration_date sent back with the change bills exactly that. */
  previewChange: (token: string, id: string, change: SubscriptionChange) =>
    call<ChangePreview>(token, "POST", `/subscriptions/${encodeURIComponent(id)}/preview`, change),
  change: (token: string, id: string, change: SubscriptionChange, prorationDate: string) =>
    call<PortalSubscription>(token, "PATCH", `/subscriptions/${encodeURIComponent(id)}`, { ...change, proration_date: prorationDate }),
};
