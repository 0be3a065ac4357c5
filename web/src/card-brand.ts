// A card's brand as printed on it, where the API carries Stripe's lowercase `visa`, `amex`, `unionpay`…: the seller
// app's payments and the customer portal's saved cards say it the same way.
import { readable, wordsFor } from "./wording.js";

const BRANDS: Readonly<Record<string, string>> = {
  visa: "Visa",
  mastercard: "Mastercard",
  amex: "American Express",
  american_express: "American Express",
  discover: "Discover",
  diners: "Diners Club",
  diners_club: "Diners Club",
  jcb: "JCB",
  unionpay: "UnionPay",
  cartes_bancaires: "Cartes Bancaires",
  eftpos_au: "eftpos",
  interac: "Interac",
  link: "Link",
};

/** A card's brand as printed on it: Stripe's `visa`, `amex`, `unionpay`… in any case (unknown: its words). */
export const cardBrand: (brand: string) => string = wordsFor(BRANDS, readable, (brand) => brand.toLowerCase());
