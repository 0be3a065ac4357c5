// Seat-based purchases in tests: a seats product that carries one custom benefit, a paid purchase of seats, and the
// invitation a seat's holder is mailed (read from the SMTP peer): its claim link, its token and the claim itself.
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { createProduct, pay, publicSdk, uniqueBuyer } from "./checkout.js";
import type { ReceivedMail } from "./mailbox.js";
import type { Seller } from "./seller.js";
import type { TestServer } from "./server.js";

/** A product sold per seat that grants one custom benefit (a seat's claim grants it to the holder). */
export async function seatsProduct(seller: Seller, benefit: { description: string; note: string | null }): Promise<{ benefitId: string; product: Product }> {
  const { id: benefitId } = await seller.sdk.benefits.create({ type: "custom", description: benefit.description, properties: { note: benefit.note } });
  const product = await createProduct(seller, "seats");
  await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefitId] } });
  return { benefitId, product };
}

/**
 * A paid seat-based subscription of `seats` seats, bought by a new address tagged `tag`; answers its ids and the
 * buyer's email.
 */
export async function buySeats(server: TestServer, seller: Seller, product: Product, seats: number, tag = "seat-buyer") {
  const buyer = uniqueBuyer(tag);
  const checkout = await seller.sdk.checkouts.create({ products: [product.id], seats });
  await pay(server, checkout, { customerEmail: buyer });
  const order = (await seller.sdk.orders.list({ productId: product.id, limit: 100 })).result.items.find((o) => o.checkoutId === checkout.id);
  if (!order?.subscriptionId) throw new Error("no subscription");
  return { subscriptionId: order.subscriptionId, orderId: order.id, buyer, customerId: order.customerId, checkoutId: checkout.id };
}

/** The claim link of a seat invitation email. */
export function claimLink(mail: ReceivedMail): string {
  const link = mail.links.find((l) => l.includes("/seats/claim?token="));
  if (!link) throw new Error(`no claim link in ${mail.text}`);
  return link;
}

/** The invitation's token, from the claim link of the mail sent to `email` (or of `received`). */
export async function invitationToken(server: TestServer, email: string, received?: ReceivedMail): Promise<string> {
  const mail = received ?? (await server.mailbox.waitFor(email, /seat/));
  return new URL(claimLink(mail)).searchParams.get("token") ?? "";
}

/**
 * Claims the seat whose invitation was mailed to `email`, as the claim page does (public, the token is the credential).
 */
export async function claimSeat(server: TestServer, email: string) {
  return publicSdk(server).customerSeats.claimSeat({ invitationToken: await invitationToken(server, email) });
}
