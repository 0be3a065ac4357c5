// Which seller page a path is: each section's list, its "new" form and its detail pages by id. Each page is its
// own chunk, loaded when its path is asked (React.lazy), so a section's code never weighs on another's.
import { lazy, Suspense, type ComponentType, type LazyExoticComponent, type ReactNode } from "react";
import { Status } from "../ui.js";
import { NotFoundPage } from "../pages/NotFound.js";
import { isUuid } from "../../../shared/uuid.js";

/** A page module's named export as a lazy component. */
function lazyPage<P extends object, K extends string>(load: () => Promise<Record<K, ComponentType<P>>>, name: K): LazyExoticComponent<ComponentType<P>> {
  return lazy(() => load().then((m) => ({ default: m[name] })));
}

const ApiKeys = lazyPage(() => import("./pages/ApiKeys.js"), "ApiKeys");
const CheckoutLinkDetail = lazyPage(() => import("./pages/CheckoutLinkDetail.js"), "CheckoutLinkDetail");
const CheckoutLinks = lazyPage(() => import("./pages/CheckoutLinks.js"), "CheckoutLinks");
const CustomerDetail = lazyPage(() => import("./pages/CustomerDetail.js"), "CustomerDetail");
const Customers = lazyPage(() => import("./pages/Customers.js"), "Customers");
const DiscountDetail = lazyPage(() => import("./pages/DiscountDetail.js"), "DiscountDetail");
const Discounts = lazyPage(() => import("./pages/Discounts.js"), "Discounts");
// the meter's usage chart brings the chart library: its own chunk
const MeterDetail = lazyPage(() => import("./pages/MeterDetail.js"), "MeterDetail");
const Meters = lazyPage(() => import("./pages/Meters.js"), "Meters");
const OrderDetail = lazyPage(() => import("./pages/OrderDetail.js"), "OrderDetail");
const Orders = lazyPage(() => import("./pages/Orders.js"), "Orders");
const ProductDetail = lazyPage(() => import("./pages/ProductDetail.js"), "ProductDetail");
const ProductEdit = lazyPage(() => import("./pages/ProductEdit.js"), "ProductEdit");
const Products = lazyPage(() => import("./pages/Products.js"), "Products");
const Settings = lazyPage(() => import("./pages/Settings.js"), "Settings");
const StripeImport = lazyPage(() => import("./pages/StripeImport.js"), "StripeImport");
const AdminOrganizations = lazyPage(() => import("./pages/AdminOrganizations.js"), "AdminOrganizations");
const SubscriptionDetail = lazyPage(() => import("./pages/SubscriptionDetail.js"), "SubscriptionDetail");
const Subscriptions = lazyPage(() => import("./pages/Subscriptions.js"), "Subscriptions");
const WebhookDeliveries = lazyPage(() => import("./pages/WebhookDeliveries.js"), "WebhookDeliveries");
const Webhooks = lazyPage(() => import("./pages/Webhooks.js"), "Webhooks");

export type Route = { page: "home" } | { page: "other"; render: () => ReactNode };

const LISTS: Record<string, () => ReactNode> = {
  products: () => <Products />,
  orders: () => <Orders />,
  customers: () => <Customers />,
  subscriptions: () => <Subscriptions />,
  "checkout-links": () => <CheckoutLinks />,
  discounts: () => <Discounts />,
  meters: () => <Meters />,
  webhooks: () => <Webhooks />,
};

const DETAILS: Record<string, (id: string) => ReactNode> = {
  products: (id) => <ProductDetail id={id} />,
  orders: (id) => <OrderDetail id={id} />,
  customers: (id) => <CustomerDetail id={id} />,
  subscriptions: (id) => <SubscriptionDetail id={id} />,
  webhooks: (id) => <WebhookDeliveries id={id} />,
  "checkout-links": (id) => <CheckoutLinkDetail id={id} />,
  discounts: (id) => <DiscountDetail id={id} />,
  meters: (id) => <MeterDetail id={id} />,
};

function which(section: string, id: string | undefined, more: string | undefined): (() => ReactNode) | null {
  if (section === "products" && id && isUuid(id) && more === "edit") return () => <ProductEdit id={id} />;
  if (more !== undefined) return null;
  if (id === undefined) {
    if (section === "settings") return () => <Settings />;
    if (section === "admin") return () => <AdminOrganizations />;
    if (section === "api-keys") return () => <ApiKeys />;
    return LISTS[section] ?? null;
  }
  if (section === "settings" && id === "import-stripe") return () => <StripeImport />;
  if (section === "products" && id === "new") return () => <ProductEdit id={null} />;
  const detail = isUuid(id) ? DETAILS[section] : undefined;
  return detail ? () => detail(id) : null;
}

export function routeOf(path: string): Route {
  const [, section = "", id, more, extra] = path.split("/");
  if (!section) return { page: "home" };
  const found = extra === undefined ? which(section, id, more) : null;
  if (!found) return { page: "other", render: () => <NotFoundPage /> };
  return {
    page: "other",
    render: () => (
      <Suspense fallback={<Status>Loading…</Status>}>
        {found()}
      </Suspense>
    ),
  };
}
