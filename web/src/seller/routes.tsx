// Which seller page a path is: each section's list, its "new" form and its detail pages by id. Each page is its
// own chunk, loaded when its path is asked (React.lazy), so a section's code never weighs on another's.
import { lazy, Suspense, type ReactNode } from "react";
import { Status } from "../ui.js";
import { NotFoundPage } from "../pages/NotFound.js";
import { isUuid } from "../../../shared/uuid.js";
import { isSettingsSlug } from "./pages/settings-sections.js";

const ApiKeys = lazy(() => import("./pages/ApiKeys.js").then((m) => ({ default: m.ApiKeys })));
const CheckoutLinkDetail = lazy(() => import("./pages/CheckoutLinkDetail.js").then((m) => ({ default: m.CheckoutLinkDetail })));
const CheckoutLinkEdit = lazy(() => import("./pages/CheckoutLinkDetail.js").then((m) => ({ default: m.CheckoutLinkEdit })));
const CheckoutLinks = lazy(() => import("./pages/CheckoutLinks.js").then((m) => ({ default: m.CheckoutLinks })));
const CustomerDetail = lazy(() => import("./pages/CustomerDetail.js").then((m) => ({ default: m.CustomerDetail })));
const CustomFieldEdit = lazy(() => import("./pages/CustomFieldForm.js").then((m) => ({ default: m.CustomFieldEdit })));
const CustomFields = lazy(() => import("./pages/CustomFields.js").then((m) => ({ default: m.CustomFields })));
const Customers = lazy(() => import("./pages/Customers.js").then((m) => ({ default: m.Customers })));
const DiscountDetail = lazy(() => import("./pages/DiscountDetail.js").then((m) => ({ default: m.DiscountDetail })));
const DiscountEdit = lazy(() => import("./pages/DiscountDetail.js").then((m) => ({ default: m.DiscountEdit })));
const Discounts = lazy(() => import("./pages/Discounts.js").then((m) => ({ default: m.Discounts })));
// the meter's usage chart brings the chart library: its own chunk
const MeterDetail = lazy(() => import("./pages/MeterDetail.js").then((m) => ({ default: m.MeterDetail })));
const MeterEdit = lazy(() => import("./pages/MeterForm.js").then((m) => ({ default: m.MeterEdit })));
const Meters = lazy(() => import("./pages/Meters.js").then((m) => ({ default: m.Meters })));
const OrderDetail = lazy(() => import("./pages/OrderDetail.js").then((m) => ({ default: m.OrderDetail })));
const Orders = lazy(() => import("./pages/Orders.js").then((m) => ({ default: m.Orders })));
const ProductDetail = lazy(() => import("./pages/ProductDetail.js").then((m) => ({ default: m.ProductDetail })));
const ProductEdit = lazy(() => import("./pages/ProductEdit.js").then((m) => ({ default: m.ProductEdit })));
const Products = lazy(() => import("./pages/Products.js").then((m) => ({ default: m.Products })));
const Settings = lazy(() => import("./pages/Settings.js").then((m) => ({ default: m.Settings })));
const StripeImport = lazy(() => import("./pages/StripeImport.js").then((m) => ({ default: m.StripeImport })));
const AdminOrganizations = lazy(() => import("./pages/AdminOrganizations.js").then((m) => ({ default: m.AdminOrganizations })));
const SubscriptionDetail = lazy(() => import("./pages/SubscriptionDetail.js").then((m) => ({ default: m.SubscriptionDetail })));
const Subscriptions = lazy(() => import("./pages/Subscriptions.js").then((m) => ({ default: m.Subscriptions })));
const WebhookDeliveries = lazy(() => import("./pages/WebhookDeliveries.js").then((m) => ({ default: m.WebhookDeliveries })));
const WebhookNew = lazy(() => import("./pages/WebhookEdit.js").then((m) => ({ default: m.WebhookNew })));
const Webhooks = lazy(() => import("./pages/Webhooks.js").then((m) => ({ default: m.Webhooks })));

export type Route = { page: "home" } | { page: "other"; render: () => ReactNode };

const LISTS: Record<string, () => ReactNode> = {
  products: () => <Products />,
  orders: () => <Orders />,
  customers: () => <Customers />,
  subscriptions: () => <Subscriptions />,
  "checkout-links": () => <CheckoutLinks />,
  discounts: () => <Discounts />,
  "custom-fields": () => <CustomFields />,
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
  "custom-fields": (id) => <CustomFieldEdit id={id} />,
  meters: (id) => <MeterDetail id={id} />,
};

/** The sections whose form is its own page: /<section>/new and /<section>/<id>/edit. */
const FORMS: Record<string, (id: string | null) => ReactNode> = {
  discounts: (id) => <DiscountEdit id={id} />,
  "checkout-links": (id) => <CheckoutLinkEdit id={id} />,
  meters: (id) => <MeterEdit id={id} />,
  "custom-fields": (id) => <CustomFieldEdit id={id} />,
};

function which(section: string, id: string | undefined, more: string | undefined): (() => ReactNode) | null {
  if (section === "products" && id && isUuid(id) && more === "edit") return () => <ProductEdit id={id} />;
  const form = FORMS[section];
  if (form && id && (id === "new" ? more === undefined : isUuid(id) && more === "edit")) return () => form(id === "new" ? null : id);
  if (more !== undefined) return null;
  if (id === undefined) {
    if (section === "settings") return () => <Settings />;
    if (section === "admin") return () => <AdminOrganizations />;
    if (section === "api-keys") return () => <ApiKeys />;
    return LISTS[section] ?? null;
  }
  if (section === "settings" && id === "import-stripe") return () => <StripeImport />;
  if (section === "settings" && isSettingsSlug(id)) return () => <Settings section={id} />;
  if (section === "products" && id === "new") return () => <ProductEdit id={null} />;
  if (section === "webhooks" && id === "new") return () => <WebhookNew />;
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
