// The smallest and largest amount a card payment may take, per currency: Stripe's published table
// ("Minimum and maximum charge amounts", https://docs.stripe.com/currencies#minimum-and-maximum-charge-amounts).
// Stripe refuses a PaymentIntent under the minimum (`amount_too_small`) or over the maximum (`amount_too_large`),
// so till never asks for one: a checkout under it is refused before any payment, a renewal under it is carried to
// the next invoice. The built-in test processor stands for Stripe's test mode, which enforces the same table.

/**
 * The minimum per currency, in minor units as Stripe writes them (JPY is zero-decimal: ¥50 is 50; HUF is
 * two-decimal on Stripe's API: 175.00 Ft is 17500). Stripe's table lists these (settlement) currencies.
 */
const MINIMUM: Readonly<Record<string, number>> = {
  usd: 50,
  aed: 200,
  aud: 50,
  bgn: 100,
  brl: 50,
  cad: 50,
  chf: 50,
  czk: 1500,
  dkk: 250,
  eur: 50,
  gbp: 30,
  hkd: 400,
  huf: 17500,
  inr: 50,
  jpy: 50,
  mxn: 1000,
  myr: 200,
  nok: 300,
  nzd: 50,
  pln: 200,
  ron: 200,
  sek: 300,
  sgd: 50,
  thb: 1000,
};

/**
 * Stripe's maximum for most currencies (99,999,999 minor units: $999,999.99). The table's exceptions are larger
 * (IDR, zero-decimal currencies), so this bound is safe for every one.
 */
export const MAXIMUM_CHARGE_AMOUNT = 99_999_999;

/**
 * The smallest positive amount (minor units) a payment in `currency` may take. A currency outside Stripe's table
 * is charged under its equivalent in the account's settlement currency, which till cannot know (no exchange
 * rates): any positive amount passes here, and Stripe's own refusal, if any, is what the payment answers.
 */
export function minimumChargeAmount(currency: string): number {
  return MINIMUM[currency.toLowerCase()] ?? 1;
}

/** A positive amount Stripe would refuse as too small (0 is not a charge: nothing is taken). */
export const isBelowMinimumCharge = (amount: number, currency: string): boolean => amount > 0 && amount < minimumChargeAmount(currency);
