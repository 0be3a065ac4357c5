// The machine codes of the errors a customer meets (shared/customer-errors.ts): beside Polar's `error` and
// `detail` (or a 422 issue's `loc`, `msg`, `type`), unchanged, so the SDKs still parse the errors as Polar's.
import { PaymentError } from "@polar-sh/sdk/models/errors/paymenterror.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CARDS, createProduct, publicRequest, publicSdk, tokenize, uniqueBuyer } from "../helpers/checkout.js";
import { startWithSellers, type SellerSetup } from "../helpers/seller.js";

let setup: SellerSetup;

beforeAll(async () => {
  setup = await startWithSellers("error-codes");
}, 120_000);
afterAll(async () => {
  await setup?.server.close();
});

const buyer = () => ({ customer_email: uniqueBuyer("codes"), customer_name: "Ada Buyer", customer_billing_address: { country: "FR" } });

describe("customer error codes", () => {
  it("a declined card: PaymentError with its detail, and the processor's code", async () => {
    const product = await createProduct(setup.seller, "fixed");
    const checkout = await setup.seller.sdk.checkouts.create({ products: [product.id] });
    const token = await tokenize(setup.server, checkout.clientSecret, CARDS.declined);
    const res = await publicRequest(setup.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, { ...buyer(), confirmation_token_id: token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "PaymentError", detail: "Your card was declined.", code: "card_declined" });
    // the SDK still parses it as Polar's PaymentError
    const again = await setup.seller.sdk.checkouts.create({ products: [product.id] });
    const second = await tokenize(setup.server, again.clientSecret, CARDS.insufficient);
    const refused = await publicSdk(setup.server)
      .checkouts.clientConfirm({
        clientSecret: again.clientSecret,
        checkoutConfirmStripe: { customerEmail: uniqueBuyer("codes"), customerName: "Ada Buyer", customerBillingAddress: { country: "FR" }, confirmationTokenId: second },
      })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(PaymentError);
    expect((refused as PaymentError).detail).toBe("Your card has insufficient funds.");
  });

  it("an unknown discount code and a bad card number: 422 issues with their codes", async () => {
    const product = await createProduct(setup.seller, "fixed");
    const checkout = await setup.seller.sdk.checkouts.create({ products: [product.id], allowDiscountCodes: true });
    const res = await publicRequest(setup.server, "PATCH", `/v1/checkouts/client/${checkout.clientSecret}`, { discount_code: "NOPE-NOPE" });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ["body", "discount_code"], msg: "Discount does not exist.", type: "value_error", input: "NOPE-NOPE", code: "discount_unknown" }]);
    const card = await publicRequest(setup.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/test-card`, { number: "4242 4242 4242 4241", exp_month: 12, exp_year: 2040, cvc: "123" });
    expect(card.status).toBe(422);
    expect(card.body.detail).toEqual([{ loc: ["body", "number"], msg: "Your card number is invalid.", type: "card_error", code: "incorrect_number" }]);
  });

  it("a wrong portal sign-in code: Unauthorized with its code", async () => {
    const res = await publicRequest(setup.server, "POST", "/v1/customer-portal/customer-session/authenticate", { code: "WRONG123" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Unauthorized", detail: "This customer session code is invalid or has expired.", code: "session_code_invalid" });
  });
});
