// Each /v1 operation's summary in /api/openapi.json: the line the reference's sidebar and the operation's heading
// show. A route may declare its own (billing/contract.ts `summary`); otherwise the five plain verbs of a resource
// read as Stripe's reference does ("List products", "Get a product"), and every other operation is named here
// (tests/api/openapi.test.ts fails on one that is not, rather than showing "Grants benefits").

/** The resource of an operationId ("checkout-links", "license_keys") in words, plural and singular. */
function resourceWords(part: string): { many: string; one: string } {
  const many = part.replace(/[-_]/g, " ").replace(/\boauth\b/, "OAuth");
  return { many, one: many.replace(/ies$/, "y").replace(/s$/, "") };
}

const withArticle = (noun: string) => `${/^[aeio]/i.test(noun) ? "an" : "a"} ${noun}`;

const PLAIN_VERBS: Record<string, (words: { many: string; one: string }) => string> = {
  list: ({ many }) => `List ${many}`,
  export: ({ many }) => `Export ${many} as CSV`,
  create: ({ one }) => `Create ${withArticle(one)}`,
  get: ({ one }) => `Get ${withArticle(one)}`,
  update: ({ one }) => `Update ${withArticle(one)}`,
  delete: ({ one }) => `Delete ${withArticle(one)}`,
};

/** Operations whose last part is not one of the plain verbs, or whose plain reading would be wrong. */
const NAMED: Record<string, string> = {
  "till:test_clock:get": "Get the sandbox's test clock",
  "metrics:get": "Get metrics",
  "metrics:export": "Export metrics as CSV",
  "metrics:limits": "Get the metrics' limits",
  "metrics:list_dashboards": "List metrics dashboards",
  "metrics:create_dashboard": "Create a metrics dashboard",
  "metrics:get_dashboard": "Get a metrics dashboard",
  "metrics:update_dashboard": "Update a metrics dashboard",
  "metrics:delete_dashboard": "Delete a metrics dashboard",
  "benefits:grants": "List a benefit's grants",
  "meters:quantities": "Get a meter's quantities",
  "events:ingest": "Ingest events",
  "events:list_names": "List event names",
  "customers:get_state": "Get a customer's state",
  "customers:get_external": "Get a customer by external ID",
  "customers:update_external": "Update a customer by external ID",
  "customers:delete_external": "Delete a customer by external ID",
  "customers:get_state_external": "Get a customer's state by external ID",
  "till:customers:list_payment_methods": "List a customer's payment methods",
  "till:customers:list_payment_methods_external": "List a customer's payment methods by external ID",
  "customers:members:list": "List a customer's members",
  "customers:members:create": "Add a member to a customer",
  "customers:members:get": "Get a customer's member",
  "customers:members:update": "Update a customer's member",
  "customers:members:delete": "Remove a customer's member",
  "customers:members:list_external": "List a customer's members by external ID",
  "customers:members:create_external": "Add a member to a customer by external ID",
  "customers:members:get_external": "Get a customer's member by external IDs",
  "customers:members:update_external": "Update a customer's member by external IDs",
  "customers:members:delete_external": "Remove a customer's member by external IDs",
  "members:list_members": "List members",
  "members:create_member": "Create a member",
  "members:get_member": "Get a member",
  "members:update_member": "Update a member",
  "members:delete_member": "Delete a member",
  "members:get_member_by_external_id": "Get a member by external ID",
  "members:update_member_by_external_id": "Update a member by external ID",
  "members:delete_member_by_external_id": "Delete a member by external ID",
  "files:uploaded": "Complete a file upload",
  "till:files:upload_part": "Upload a part of a file",
  "till:files:public": "Download a public file",
  "till:files:download": "Download a file",
  "products:update_benefits": "Set a product's benefits",
  "checkouts:client_get": "Get a checkout by client secret",
  "checkouts:client_update": "Update a checkout by client secret",
  "checkouts:client_confirm": "Confirm a checkout by client secret",
  "till:checkouts:client_test_card": "Tokenize a test card for a checkout (test processor)",
  "till:checkouts:client_stream": "Follow a checkout's status (event stream)",
  "till:checkout_links:redirect": "Open a checkout link",
  "orders:finalize": "Finalize an order",
  "orders:generate_invoice": "Generate an order's invoice",
  "orders:invoice": "Get an order's invoice",
  "till:orders:receipt": "Get an order's receipt",
  "till:invoices:pdf": "Download an invoice as PDF",
  "disputes:accept": "Accept a dispute",
  "till:stripe:connect": "Connect a Stripe account",
  "till:stripe:get_connection": "Get the Stripe connection",
  "till:stripe:disconnect": "Disconnect the Stripe account",
  "subscriptions:revoke": "Revoke a subscription",
  "till:subscriptions:renew": "Renew a subscription now",
  "webhooks:list_webhook_endpoints": "List webhook endpoints",
  "webhooks:create_webhook_endpoint": "Create a webhook endpoint",
  "webhooks:get_webhook_endpoint": "Get a webhook endpoint",
  "webhooks:update_webhook_endpoint": "Update a webhook endpoint",
  "webhooks:delete_webhook_endpoint": "Delete a webhook endpoint",
  "webhooks:reset_webhook_endpoint_secret": "Reset a webhook endpoint's secret",
  "webhooks:list_webhook_deliveries": "List webhook deliveries",
  "webhooks:redeliver_webhook_event": "Redeliver a webhook event",
  "till:cli:listen": "Stream webhook events to the CLI",
  "license_keys:get_activation": "Get a license key's activation",
  "license_keys:validate": "Validate a license key",
  "license_keys:activate": "Activate a license key",
  "license_keys:deactivate": "Deactivate a license key",
  "customer_portal:license_keys:validate": "Validate a license key",
  "customer_portal:license_keys:activate": "Activate a license key",
  "customer_portal:license_keys:deactivate": "Deactivate a license key",
  "till:customer_portal:customer_session:request": "Email a customer a sign-in code",
  "till:customer_portal:customer_session:authenticate": "Sign a customer in with an emailed code",
  "customer_portal:customer-session:introspect": "Introspect the customer session",
  "customer_portal:customer-session:get_authenticated_user": "Get the signed-in customer or member",
  "customer_portal:customers:request_email_update": "Request an email change",
  "customer_portal:customers:check_email_update": "Check an email change's code",
  "customer_portal:customers:verify_email_update": "Confirm an email change",
  "customer_portal:customers:list_payment_methods": "List the customer's payment methods",
  "customer_portal:customers:add_payment_method": "Add a payment method",
  "customer_portal:customers:confirm_payment_method": "Confirm a payment method",
  "till:customer_portal:customers:set_default_payment_method": "Make a payment method the default",
  "customer_portal:customers:delete_payment_method": "Remove a payment method",
  "till:customer_portal:customers:payment_processor": "Get the payment processor and its publishable key",
  "till:customer_portal:customers:test_card": "Tokenize a test card (test processor)",
  "customer_portal:subscriptions:cancel": "Cancel a subscription",
  "customer_portal:orders:generate_invoice": "Generate an order's invoice",
  "customer_portal:orders:invoice": "Get an order's invoice",
  "till:customer_portal:orders:receipt": "Get an order's receipt",
  "customer_portal:orders:get_payment_status": "Get an order's payment status",
  "customer_portal:orders:confirm_retry_payment": "Pay a pending order",
  "customer-seats:list_seats": "List seats",
  "customer-seats:assign_seat": "Assign a seat",
  "customer-seats:revoke_seat": "Revoke a seat",
  "customer-seats:resend_invitation": "Resend a seat's invitation",
  "customer-seats:get_claim_info": "Get a seat invitation",
  "customer-seats:claim_seat": "Claim a seat",
  "customer_portal:seats:list_seats": "List seats",
  "customer_portal:seats:assign_seat": "Assign a seat",
  "customer_portal:seats:revoke_seat": "Revoke a seat",
  "customer_portal:seats:resend_invitation": "Resend a seat's invitation",
  "customer_portal:seats:list_claimed_subscriptions": "List the subscriptions of claimed seats",
  "customer_portal:members:list_members": "List the customer's members",
  "customer_portal:members:add_member": "Add a member",
  "customer_portal:members:update_member": "Update a member",
  "customer_portal:members:remove_member": "Remove a member",
  "till:organizations:email_preview": "Preview a customer email",
  "till:test_clock:advance": "Advance the sandbox's test clock",
  "till:benefit_grants:regrant": "Deliver a benefit grant again",
  "till:benefit_integrations:put_github": "Connect a GitHub App",
  "till:benefit_integrations:put_discord": "Connect a Discord bot",
  "till:customer_portal:oauth_accounts:authorize": "Start linking an OAuth account",
  "till:customer_portal:oauth_accounts:callback": "Finish linking an OAuth account",
  "till:wallets:top_up": "Top up a wallet",
  "till:wallets:adjust": "Adjust a wallet's balance",
  "till:wallets:list_transactions": "List a wallet's transactions",
  "till:customer_portal:wallets:credit_offers": "List credit offers",
  "till:customer_portal:wallets:list_transactions": "List the wallet's transactions",
  "till:customer_portal:wallets:get_auto_recharge": "Get the wallet's auto-recharge",
  "till:customer_portal:wallets:update_auto_recharge": "Update the wallet's auto-recharge",
};

/**
 * The summary of an operation without one of its own: named above, else a plain verb's reading of its resource
 * ("products:list" → "List products", "customer_portal:subscriptions:get" → "Get a subscription"); undefined
 * when neither applies (the test names it).
 */
export function summaryOf(operationId: unknown): string | undefined {
  if (typeof operationId !== "string") return undefined;
  const named = NAMED[operationId];
  if (named) return named;
  const parts = operationId.replace(/^till:/, "").split(":");
  const verb = PLAIN_VERBS[parts.at(-1) ?? ""];
  const resource = parts.at(-2);
  return verb && resource ? verb(resourceWords(resource)) : undefined;
}
