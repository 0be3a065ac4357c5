// The seller app's words for what the API names in a developer's (web/src/seller/words.ts): every webhook type till
// sends reads as a seller's phrase, an unknown type as its own words capitalized; card brands as printed on cards;
// the statuses of orders, payments, subscriptions and seats; a dispute's status and Stripe's reasons; a refund's
// reason and status, an order's billing reason and a benefit's type by their proper names; a meter's usage past its
// credits as overage, never a negative remainder; a 422 said at a form's fields, the rest without the server's
// field paths.
import { describe, expect, it } from "vitest";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../shared/webhook-events.js";
import { formErrors, messageOf } from "../../web/src/seller/api.js";
import {
  benefitType, billingReason, cardBrand, disputeReason, disputeStatus, eventWords, meterLeft, orderStatus, paymentStatus, readable, refundReason, refundStatus, seatStatus,
  subscriptionStatus,
} from "../../web/src/seller/words.js";
import { wordsFor } from "../../web/src/wording.js";

describe("the seller app's words", () => {
  it("names events as a seller says them", () => {
    expect(eventWords("order.paid")).toBe("Order paid");
    expect(eventWords("subscription.revoked")).toBe("Subscription ended");
    expect(eventWords("benefit_grant.cycled")).toBe("Benefit renewed for the new period");
    expect(eventWords("refund.created")).toBe("Refund made");
  });

  it("has a phrase of its own for every type an endpoint may subscribe to (none left as the type's words)", () => {
    for (const type of SUBSCRIBABLE_EVENT_TYPES) {
      const said = eventWords(type);
      expect(said, type).not.toContain(".");
      expect(said, type).not.toContain("_");
      expect(said[0], type).toBe(said[0]!.toUpperCase());
    }
  });

  it("reads an unknown type as its words, capitalized", () => {
    expect(eventWords("invoice.voided")).toBe("Invoice voided");
    expect(eventWords("till.something_new.happened")).toBe("Something new happened");
    expect(readable("order_confirmation")).toBe("Order confirmation");
    expect(readable("")).toBe("—");
  });

  it("looks every mapping up one way: its words, else the fallback's, a dash for nothing", () => {
    const said = wordsFor({ past_due: "Behind on payment" });
    expect([said("past_due"), said("brand_new"), said(null), said(undefined), said("")]).toEqual(["Behind on payment", "Brand new", "—", "—", "—"]);
    const shouted = wordsFor({ visa: "Visa" }, (v) => `?${v}`, (v) => v.toLowerCase());
    expect([shouted("VISA"), shouted("Odd_Brand")]).toEqual(["Visa", "?Odd_Brand"]);
  });

  it("prints card brands as on the card", () => {
    expect(cardBrand("visa")).toBe("Visa");
    expect(cardBrand("mastercard")).toBe("Mastercard");
    expect(cardBrand("amex")).toBe("American Express");
    expect(cardBrand("American Express")).toBe("American Express");
    expect(cardBrand("unionpay")).toBe("UnionPay");
    expect(cardBrand("jcb")).toBe("JCB");
    expect(cardBrand("diners")).toBe("Diners Club");
    expect(cardBrand("cartes_bancaires")).toBe("Cartes Bancaires");
    expect(cardBrand("some_brand")).toBe("Some brand");
    // Stripe's older Card objects say it capitalized; an unknown one keeps its own capitals
    expect(cardBrand("MasterCard")).toBe("Mastercard");
    expect(cardBrand("New_Brand")).toBe("New Brand");
  });

  it("says a dispute's status and reason", () => {
    expect(disputeStatus("needs_response")).toBe("Needs your response");
    expect(disputeStatus("under_review")).toBe("Under review");
    expect(disputeStatus("lost")).toBe("Lost");
    expect(disputeStatus("early_warning")).toBe("Early warning");
    expect(disputeStatus("charge_refunded")).toBe("Charge refunded");
    expect(disputeReason("fraudulent")).toBe("Fraud: the cardholder did not make this payment");
    expect(disputeReason("product_not_received")).toBe("Product not received");
    expect(disputeReason("new_reason")).toBe("New reason");
    expect(disputeReason(null)).toBe("—");
  });

  it("says an order's, a payment's, a subscription's and a seat's status as words, not as the wire's", () => {
    expect(["pending", "paid", "partially_refunded", "refunded", "void"].map(orderStatus)).toEqual(["Pending", "Paid", "Partially refunded", "Refunded", "Void"]);
    expect(["pending", "succeeded", "failed"].map(paymentStatus)).toEqual(["Pending", "Succeeded", "Failed"]);
    expect(["incomplete", "incomplete_expired", "trialing", "active", "past_due", "canceled", "unpaid"].map(subscriptionStatus)).toEqual([
      "Incomplete", "Incomplete, expired", "Trialing", "Active", "Past due", "Canceled", "Unpaid",
    ]);
    expect(["pending", "claimed", "revoked"].map(seatStatus)).toEqual(["Pending", "Claimed", "Revoked"]);
    expect(subscriptionStatus("paused")).toBe("Paused");
  });

  it("says usage past the credits as overage", () => {
    expect(meterLeft(40)).toBe("40");
    expect(meterLeft(0)).toBe("0");
    expect(meterLeft(-1)).toBe("1 over the credit");
    expect(meterLeft(-1500)).toBe("1,500 over the credit");
    expect(meterLeft(2.5)).toBe("2.5");
  });

  it("says a refund's reason and status and an order's billing reason in a seller's words", () => {
    expect(refundReason("customer_request")).toBe("The customer asked");
    expect(refundReason("satisfaction_guarantee")).toBe("Satisfaction guarantee");
    expect(refundReason("something_else")).toBe("Something else");
    expect(refundReason(null)).toBe("—");
    expect(refundStatus("succeeded")).toBe("Refunded");
    expect(refundStatus("pending")).toBe("Pending");
    expect(billingReason("subscription_cycle")).toBe("Subscription renewal");
    expect(billingReason("purchase")).toBe("One-time purchase");
    expect(billingReason("subscription_update")).toBe("Change of a subscription");
    expect(billingReason(null)).toBe("—");
  });

  it("names benefit types properly", () => {
    expect(
      ["github_repository", "discord", "license_keys", "downloadables", "meter_credit", "feature_flag", "custom"].map(benefitType),
    ).toEqual(["GitHub repository access", "Discord role", "License keys", "File downloads", "Meter credits", "Feature flag", "Custom"]);
    expect(benefitType("new_kind")).toBe("New kind");
  });

  it("says a 422 at the form's fields, and what no field shows without the server's paths", () => {
    const detail = [
      { loc: ["body", "properties", "role_id"], msg: "The bot's highest role must be above role 7 to give it.", type: "value_error" },
      { loc: ["body", "properties", "kick_member"], msg: "Expected a boolean", type: "value_error" },
    ];
    expect(messageOf(422, { detail })).toBe("The bot's highest role must be above role 7 to give it.; Expected a boolean");
    const fields = detail.map((d) => ({ path: d.loc.slice(1).join("."), message: d.msg }));
    const error = { status: 422, code: undefined, message: messageOf(422, { detail }), fields };
    expect(formErrors(error, (p) => (p === "properties.role_id" ? "role_id" : undefined))).toEqual({
      at: { role_id: "The bot's highest role must be above role 7 to give it." },
      rest: "Expected a boolean",
    });
    expect(formErrors(error, (p) => p.split(".").pop())).toMatchObject({ rest: "Some fields need a change: see the messages under them." });
    expect(formErrors({ status: 404, code: undefined, message: "Not found" }, () => "x")).toEqual({ at: {}, rest: "Not found" });
  });
});
