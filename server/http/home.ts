// GET /api/home: what the signed-in web home shows, for the browser's session cookie — each organization of
// the user with a few of its products, its recent orders and subscriptions (live side) and its API keys.
// It reads through the server's own routes (app.inject: /v1 with the session as a bearer, /api/auth with the
// cookie), so permissions, tenancy and wire shapes are exactly those of the API; nothing here knows a table.
import { fromNodeHeaders } from "better-auth/node";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Auth } from "../auth/index.js";

/** How many of each the home lists per organization (it links to the CLI for the rest). */
const RECENT = 5;

interface Organization {
  id: string;
  name: string;
  slug: string;
}

interface Page<T> {
  items: T[];
  pagination: { total_count: number };
}

interface Price {
  amount_type: string;
  price_amount?: number;
  price_currency?: string;
  is_archived?: boolean;
}

interface Product {
  id: string;
  name: string;
  recurring_interval: string | null;
  prices: Price[];
}

interface Order {
  id: string;
  created_at: string;
  status: string;
  total_amount: number;
  currency: string;
  customer?: { email?: string | null } | null;
  product?: { name?: string } | null;
}

interface Subscription {
  id: string;
  status: string;
  amount: number;
  currency: string;
  recurring_interval: string;
  customer?: { email?: string | null } | null;
  product?: { name?: string } | null;
}

interface ApiKey {
  id: string;
  name: string | null;
  start: string | null;
  expiresAt: string | null;
  enabled?: boolean;
}

/** A list the caller may not read (a member's role, a key list for owners only) is shown as not visible. */
type Listed<T> = { visible: true; total: number; items: T[] } | { visible: false };

export function homePlugin(auth: Auth) {
  return async function home(app: FastifyInstance): Promise<void> {
    app.get("/api/home", async (req, reply) => {
      const session = await auth.api.getSession({ headers: fromNodeHeaders(req.headers) });
      if (!session) return reply.status(401).send({ error: "Unauthorized", detail: "Sign in to see your organizations." });
      const read = reader(app, req, session.session.token);
      const organizations = (await read<Organization[]>(`/api/auth/organization/list`, "cookie")) ?? [];
      const summaries = await Promise.all(organizations.map((o) => summarize(read, o)));
      return { user: { id: session.user.id, email: session.user.email, name: session.user.name }, organizations: summaries };
    });
  };
}

type Read = <T>(url: string, as: "cookie" | "bearer") => Promise<T | null>;

/** GETs one of the server's own routes as this user; null when the answer is not 200. */
function reader(app: FastifyInstance, req: FastifyRequest, token: string): Read {
  return async <T>(url: string, as: "cookie" | "bearer") => {
    const headers = as === "cookie" ? { cookie: req.headers.cookie ?? "" } : { authorization: `Bearer ${token}` };
    const res = await app.inject({ method: "GET", url, headers: { ...headers, "x-request-id": req.id } });
    return res.statusCode === 200 ? (res.json() as T) : null;
  };
}

function listed<T, U>(page: Page<T> | null, map: (item: T) => U): Listed<U> {
  return page ? { visible: true, total: page.pagination.total_count, items: page.items.map(map) } : { visible: false };
}

async function summarize(read: Read, org: Organization) {
  const q = `organization_id=${encodeURIComponent(org.id)}&limit=${RECENT}`;
  const [products, orders, subscriptions, keys] = await Promise.all([
    read<Page<Product>>(`/v1/products/?${q}&is_archived=false`, "bearer"),
    read<Page<Order>>(`/v1/orders/?${q}`, "bearer"),
    read<Page<Subscription>>(`/v1/subscriptions/?${q}`, "bearer"),
    read<{ apiKeys: ApiKey[]; total: number }>(`/api/auth/api-key/list?organizationId=${encodeURIComponent(org.id)}`, "cookie"),
  ]);
  return {
    id: org.id,
    name: org.name,
    slug: org.slug,
    products: listed(products, (p) => ({
      id: p.id,
      name: p.name,
      recurring_interval: p.recurring_interval,
      prices: p.prices
        .filter((x) => !x.is_archived)
        .map((x) => ({ amount_type: x.amount_type, amount: x.price_amount ?? null, currency: x.price_currency ?? "usd" })),
    })),
    orders: listed(orders, (o) => ({
      id: o.id,
      created_at: o.created_at,
      status: o.status,
      total_amount: o.total_amount,
      currency: o.currency,
      customer_email: o.customer?.email ?? null,
      product_name: o.product?.name ?? null,
    })),
    subscriptions: listed(subscriptions, (s) => ({
      id: s.id,
      status: s.status,
      amount: s.amount,
      currency: s.currency,
      recurring_interval: s.recurring_interval,
      customer_email: s.customer?.email ?? null,
      product_name: s.product?.name ?? null,
    })),
    api_keys: keys
      ? ({
          visible: true,
          total: keys.total,
          items: keys.apiKeys.map((k) => ({ id: k.id, name: k.name, start: k.start, expires_at: k.expiresAt, enabled: k.enabled !== false })),
        } as const)
      : ({ visible: false } as const),
  };
}

export type HomeSummary = Awaited<ReturnType<typeof summarize>>;
