// The seller app's words for what the API names in a developer's (web/src/seller/words.ts): every webhook type till
// sends reads as a seller's phrase, an unknown type as its own words capitalized; card brands as printed on cards;
// a dispute's status and Stripe's reasons; a meter's usage past its credits as overage, never a negative remainder.
import { describe, expect, it } from "vitest";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../shared/webhook-events.js";
import { cardBrand, disputeReason, disputeStatus, eventWords, meterLeft, readable } from "../../web/src/seller/words.js";

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

  it("says usage past the credits as overage", () => {
    expect(meterLeft(40)).toBe("40");
    expect(meterLeft(0)).toBe("0");
    expect(meterLeft(-1)).toBe("1 over the credit");
    expect(meterLeft(-1500)).toBe("1,500 over the credit");
    expect(meterLeft(2.5)).toBe("2.5");
  });
});
