// The bank transfer's instructions as the pay page's API answers them (server/payments/processor.ts fills them from
// the processor's words, Stripe's display_bank_transfer_instructions; web/src/pay shows them): one shape on both sides.

/** Where the customer sends the money. */
export interface BankTransferInstructions {
  /** Stripe's kind of transfer: us_bank_transfer, eu_bank_transfer, gb_bank_transfer, jp_bank_transfer, mx_…. */
  type: string;
  /** Still to send, minor units (less than the amount after a partial transfer). */
  amount_remaining: number;
  currency: string;
  /** What the customer writes on the transfer so that it is matched to this payment. */
  reference: string | null;
  /** The processor's own page with the same instructions. */
  hosted_instructions_url: string | null;
  /** The accounts to send to: each with the networks it takes and its details (account and routing numbers, IBAN…). */
  financial_addresses: Array<{ type: string; supported_networks: string[]; details: Array<{ name: string; value: string }> }>;
}
