// The @polar-sh/sdk models that are a "smart union" (the SDK tries each member and keeps the best match): a zod
// transform, which JSON Schema cannot describe, so zod writes it as `{}` — an untyped response and every list of
// it untyped too. Each is named here with its members (the SDK's own member models, as Polar's OpenAPI names them):
// the document makes the union `anyOf` its members, each a component of its own, and every place the union
// appears a reference to it (server/openapi/openapi.ts). TypeScript checks each entry names a real SDK schema.

export interface PolarUnion {
  /** The union's inbound schema, as the SDK's other models hold it (by identity). */
  union: unknown;
  members: Record<string, unknown>;
}

export const POLAR_UNIONS: Readonly<Record<string, () => Promise<PolarUnion>>> = {
  Discount: async () => ({
    union: (await import("@polar-sh/sdk/models/components/discount.js")).Discount$inboundSchema,
    members: {
      DiscountFixedRepeatDuration: (await import("@polar-sh/sdk/models/components/discountfixedrepeatduration.js")).DiscountFixedRepeatDuration$inboundSchema,
      DiscountFixedOnceForeverDuration: (await import("@polar-sh/sdk/models/components/discountfixedonceforeverduration.js")).DiscountFixedOnceForeverDuration$inboundSchema,
      DiscountPercentageRepeatDuration: (await import("@polar-sh/sdk/models/components/discountpercentagerepeatduration.js")).DiscountPercentageRepeatDuration$inboundSchema,
      DiscountPercentageOnceForeverDuration: (await import("@polar-sh/sdk/models/components/discountpercentageonceforeverduration.js")).DiscountPercentageOnceForeverDuration$inboundSchema,
    },
  }),
  Event: async () => ({
    union: (await import("@polar-sh/sdk/models/components/event.js")).Event$inboundSchema,
    members: {
      UserEvent: (await import("@polar-sh/sdk/models/components/userevent.js")).UserEvent$inboundSchema,
      SystemEvent: (await import("@polar-sh/sdk/models/components/systemevent.js")).SystemEvent$inboundSchema,
    },
  }),
  Payment: async () => ({
    union: (await import("@polar-sh/sdk/models/components/payment.js")).Payment$inboundSchema,
    members: {
      CardPayment: (await import("@polar-sh/sdk/models/components/cardpayment.js")).CardPayment$inboundSchema,
      GenericPayment: (await import("@polar-sh/sdk/models/components/genericpayment.js")).GenericPayment$inboundSchema,
    },
  }),
  CustomerBenefitGrant: async () => ({
    union: (await import("@polar-sh/sdk/models/components/customerbenefitgrant.js")).CustomerBenefitGrant$inboundSchema,
    members: {
      CustomerBenefitGrantDiscord: (await import("@polar-sh/sdk/models/components/customerbenefitgrantdiscord.js")).CustomerBenefitGrantDiscord$inboundSchema,
      CustomerBenefitGrantGitHubRepository: (await import("@polar-sh/sdk/models/components/customerbenefitgrantgithubrepository.js")).CustomerBenefitGrantGitHubRepository$inboundSchema,
      CustomerBenefitGrantDownloadables: (await import("@polar-sh/sdk/models/components/customerbenefitgrantdownloadables.js")).CustomerBenefitGrantDownloadables$inboundSchema,
      CustomerBenefitGrantLicenseKeys: (await import("@polar-sh/sdk/models/components/customerbenefitgrantlicensekeys.js")).CustomerBenefitGrantLicenseKeys$inboundSchema,
      CustomerBenefitGrantCustom: (await import("@polar-sh/sdk/models/components/customerbenefitgrantcustom.js")).CustomerBenefitGrantCustom$inboundSchema,
      CustomerBenefitGrantMeterCredit: (await import("@polar-sh/sdk/models/components/customerbenefitgrantmetercredit.js")).CustomerBenefitGrantMeterCredit$inboundSchema,
      CustomerBenefitGrantFeatureFlag: (await import("@polar-sh/sdk/models/components/customerbenefitgrantfeatureflag.js")).CustomerBenefitGrantFeatureFlag$inboundSchema,
    },
  }),
  CustomerPaymentMethod: async () => ({
    union: (await import("@polar-sh/sdk/models/components/customerpaymentmethod.js")).CustomerPaymentMethod$inboundSchema,
    members: {
      PaymentMethodCard: (await import("@polar-sh/sdk/models/components/paymentmethodcard.js")).PaymentMethodCard$inboundSchema,
      PaymentMethodGeneric: (await import("@polar-sh/sdk/models/components/paymentmethodgeneric.js")).PaymentMethodGeneric$inboundSchema,
    },
  }),
  EventsListResponseEventsList: async () => ({
    union: (await import("@polar-sh/sdk/models/operations/eventslist.js")).EventsListResponseEventsList$inboundSchema,
    members: {
      ListResourceEvent: (await import("@polar-sh/sdk/models/components/listresourceevent.js")).ListResourceEvent$inboundSchema,
      ListResourceWithCursorPaginationEvent: (await import("@polar-sh/sdk/models/components/listresourcewithcursorpaginationevent.js")).ListResourceWithCursorPaginationEvent$inboundSchema,
    },
  }),
};
