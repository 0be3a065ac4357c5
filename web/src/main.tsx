// The web app's entry: picks the page from the path. Pages link to each other with plain links, so each
// page is a fresh load and needs no client-side router.
import { StrictMode, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import { CheckoutPage } from "./pages/Checkout.js";
import { DevicePage } from "./pages/Device.js";
import { HomePage } from "./pages/Home.js";
import { InvitationPage } from "./pages/Invitation.js";
import { NotFoundPage } from "./pages/NotFound.js";
import { PortalPage } from "./pages/Portal.js";
import { ResetPasswordPage } from "./pages/ResetPassword.js";
import { SeatClaimPage } from "./pages/SeatClaim.js";
import { SignInPage } from "./pages/SignIn.js";
import "./styles.css";

function page(pathname: string): ReactNode {
  const path = pathname.replace(/\/+$/, "") || "/";
  if (path === "/") return <HomePage />;
  if (path === "/sign-in") return <SignInPage />;
  if (path === "/device") return <DevicePage />;
  if (path === "/reset-password") return <ResetPasswordPage />;
  if (path === "/portal") return <PortalPage />;
  if (path === "/seats/claim") return <SeatClaimPage />;
  if (path.startsWith("/accept-invitation/")) return <InvitationPage />;
  if (path.startsWith("/checkout/")) return <CheckoutPage />;
  return <NotFoundPage />;
}

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(<StrictMode>{page(window.location.pathname)}</StrictMode>);
}
