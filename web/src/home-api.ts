// The signed-in home's data: GET /api/home (the user's organizations, each with a few products, recent orders
// and subscriptions, and its API keys) and creating an organization (better-auth's route, with the cookie).
import { auth, request, type Result } from "./api.js";

export type Listed<T> = { visible: true; total: number; items: T[] } | { visible: false };

export interface HomeProduct {
  id: string;
  name: string;
  recurring_interval: string | null;
  prices: { amount_type: string; amount: number | null; currency: string }[];
}

export interface HomeOrder {
  id: string;
  created_at: string;
  status: string;
  total_amount: number;
  currency: string;
  customer_email: string | null;
  product_name: string | null;
}

export interface HomeSubscription {
  id: string;
  status: string;
  amount: number;
  currency: string;
  recurring_interval: string;
  customer_email: string | null;
  product_name: string | null;
}

export interface HomeKey {
  id: string;
  name: string | null;
  start: string | null;
  expires_at: string | null;
  enabled: boolean;
}

export interface HomeOrganization {
  id: string;
  name: string;
  slug: string;
  products: Listed<HomeProduct>;
  orders: Listed<HomeOrder>;
  subscriptions: Listed<HomeSubscription>;
  api_keys: Listed<HomeKey>;
}

export interface Home {
  user: { id: string; email: string; name: string };
  organizations: HomeOrganization[];
}

export const getHome = (): Promise<Result<Home>> => request<Home>("GET", "/api/home");

/** "Acme Inc." → "acme-inc": the slug the CLI derives too (`till orgs create`). */
export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
}

export const createOrganization = (name: string, slug: string) => auth.post<{ id: string; slug: string }>("/organization/create", { name, slug });
