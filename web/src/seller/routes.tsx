// Which seller page a path is: each section's list, its "new" form and its detail pages by id.
import { lazy, Suspense, type ReactNode } from "react";
import { Status } from "../ui.js";
import { NotFoundPage } from "../pages/NotFound.js";
import { CustomerDetail } from "./pages/CustomerDetail.js";
import { ApiKeys } from "./pages/ApiKeys.js";
import { CheckoutLinkDetail } from "./pages/CheckoutLinkDetail.js";
import { CheckoutLinks } from "./pages/CheckoutLinks.js";
import { DiscountDetail } from "./pages/DiscountDetail.js";
import { Customers } from "./pages/Customers.js";
import { Discounts } from "./pages/Discounts.js";
import { Meters } from "./pages/Meters.js";
import { OrderDetail } from "./pages/OrderDetail.js";
import { Orders } from "./pages/Orders.js";
import { ProductEdit } from "./pages/ProductEdit.js";
import { Products } from "./pages/Products.js";
import { Settings } from "./pages/Settings.js";
import { StripeImport } from "./pages/StripeImport.js";
import { AdminOrganizations } from "./pages/AdminOrganizations.js";
import { SubscriptionDetail } from "./pages/SubscriptionDetail.js";
import { Subscriptions } from "./pages/Subscriptions.js";
import { WebhookDeliveries } from "./pages/WebhookDeliveries.js";
import { Webhooks } from "./pages/Webhooks.js";
import { isUuid } from "../../../shared/uuid.js";

// the meter's usage chart brings the chart library: its own chunk
const MeterDetail = lazy(() => import("./pages/MeterDetail.js").then((m) => ({ default: m.MeterDetail })));

export type Route = { page: "home" } | { page: "other"; render: () => ReactNode };

export function routeOf(path: string): Route {
  const [, section = "", id, more] = path.split("/");
  const page = (render: () => ReactNode): Route => ({ page: "other", render });
  if (!section) return { page: "home" };
  if (more !== undefined) return page(() => <NotFoundPage />);
  if (section === "settings" && id === undefined) return page(() => <Settings />);
  if (section === "settings" && id === "import-stripe") return page(() => <StripeImport />);
  if (section === "admin" && id === undefined) return page(() => <AdminOrganizations />);
  if (section === "api-keys" && id === undefined) return page(() => <ApiKeys />);
  if (section === "products" && id === "new") return page(() => <ProductEdit id={null} />);
  if (id === undefined) {
    if (section === "products") return page(() => <Products />);
    if (section === "orders") return page(() => <Orders />);
    if (section === "customers") return page(() => <Customers />);
    if (section === "subscriptions") return page(() => <Subscriptions />);
    if (section === "checkout-links") return page(() => <CheckoutLinks />);
    if (section === "discounts") return page(() => <Discounts />);
    if (section === "meters") return page(() => <Meters />);
    if (section === "webhooks") return page(() => <Webhooks />);
  } else if (isUuid(id)) {
    if (section === "products") return page(() => <ProductEdit id={id} />);
    if (section === "orders") return page(() => <OrderDetail id={id} />);
    if (section === "customers") return page(() => <CustomerDetail id={id} />);
    if (section === "subscriptions") return page(() => <SubscriptionDetail id={id} />);
    if (section === "webhooks") return page(() => <WebhookDeliveries id={id} />);
    if (section === "checkout-links") return page(() => <CheckoutLinkDetail id={id} />);
    if (section === "discounts") return page(() => <DiscountDetail id={id} />);
    if (section === "meters")
      return page(() => (
        <Suspense fallback={<Status>Loading…</Status>}>
          <MeterDetail id={id} />
        </Suspense>
      ));
  }
  return page(() => <NotFoundPage />);
}
