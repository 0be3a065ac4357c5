// What every seller page knows: the signed-in user, the organizations, the one shown and its side, and what the
// member's role may change there (from /api/whoami; the API enforces it, the pages only hide what it refuses).
import { createContext, useContext } from "react";
import { mayWrite, type Scope, type WhoAmI } from "./api.js";
import type { Mode } from "./url.js";

export interface Organization {
  id: string;
  name: string;
  slug: string;
}

export interface Seller {
  user: { id: string; email: string; name: string };
  organizations: Organization[];
  organization: Organization;
  mode: Mode;
  scope: Scope;
  who: WhoAmI | undefined;
}

export const SellerContext = createContext<Seller | null>(null);

export function useSeller(): Seller {
  const seller = useContext(SellerContext);
  if (!seller) throw new Error("useSeller outside the seller layout");
  return seller;
}

/** Whether the member may change `resource` (products, orders, …) in the organization shown. */
export function useMayWrite(resource: string): boolean {
  return mayWrite(useSeller().who, resource);
}
