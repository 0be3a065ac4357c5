// The web app's entry: picks the page from the path. The hosted checkout (the page customers wait on) is part
// of the entry, so it renders without a second round trip; every other page is its own chunk, loaded when its
// path is asked, so the checkout does not carry the portal's or the sign-in pages' code. Pages link to each
// other with plain links, so each page is a fresh load and needs no client-side router.
import { StrictMode, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import { CheckoutPage } from "./pages/Checkout.js";
import "./styles.css";

type PageModule = () => Promise<ReactNode>;

/** The seller's pages (web/src/seller): home, and each section with its detail pages. */
const SELLER_SECTIONS = ["products", "orders", "customers", "subscriptions", "checkout-links", "discounts", "meters", "webhooks", "custom-fields", "api-keys", "settings", "admin"];
const isSellerPath = (path: string) => path === "/" || SELLER_SECTIONS.includes(path.split("/")[1] ?? "");

function pageOf(pathname: string): PageModule {
  const path = pathname.replace(/\/+$/, "") || "/";
  if (isSellerPath(path)) return () => import("./seller/App.js").then((m) => <m.SellerApp path={path} />);
  if (path === "/sign-in") return () => import("./pages/SignIn.js").then((m) => <m.SignInPage />);
  if (path === "/device") return () => import("./pages/Device.js").then((m) => <m.DevicePage />);
  if (path === "/reset-password") return () => import("./pages/ResetPassword.js").then((m) => <m.ResetPasswordPage />);
  if (path === "/portal") return () => import("./pages/Portal.js").then((m) => <m.PortalPage />);
  if (path === "/seats/claim") return () => import("./pages/SeatClaim.js").then((m) => <m.SeatClaimPage />);
  if (path.startsWith("/pay/")) return () => import("./pages/Pay.js").then((m) => <m.PayPage />);
  if (path.startsWith("/accept-invitation/")) return () => import("./pages/Invitation.js").then((m) => <m.InvitationPage />);
  if (path.startsWith("/checkout/")) return () => Promise.resolve(<CheckoutPage />);
  return () => import("./pages/NotFound.js").then((m) => <m.NotFoundPage />);
}

const root = document.getElementById("root");
if (root) {
  void pageOf(window.location.pathname)().then((page) => createRoot(root).render(<StrictMode>{page}</StrictMode>));
}
