// An organization's connection to its payment processor's account, in billing's terms: a sandbox organization
// connects test-mode keys only, a live one live keys only; connecting or disconnecting a processor for real money
// moves the organization's status in the transaction that keeps or forgets the keys. Everything the processor
// checks and keeps is its adapter's (ProcessorAccounts, payments/accounts.ts).
import type { Db } from "../../db/client.js";
import type { ProcessorAccounts } from "../../payments/accounts.js";
import type { StripeConnectionWire, StripeStatusWire } from "../../../shared/stripe.js";
import { valueIssue } from "../http.js";
import { badGateway, notFound, validationError } from "../errors.js";
import { liveOrganizationOf } from "../organizations/sandbox.js";
import { moveStatus, type StatusPolicy } from "../organizations/status.js";

export interface ConnectionDeps {
  db: Db;
  accounts: ProcessorAccounts;
  /** The built-in test processor takes live organizations' payments too (TILL_TEST_PAYMENTS=live). */
  testInLive?: boolean;
}

const isSandbox = async (db: Db, organizationId: string) => (await liveOrganizationOf(db, organizationId)) !== null;

/** Connects the account of the keys in `input` (parsed with `accounts.connectInput`). */
export async function connect(deps: ConnectionDeps, organizationId: string, input: unknown, policy: StatusPolicy): Promise<StripeConnectionWire> {
  const sandbox = await isSandbox(deps.db, organizationId);
  // a processor for real money moves the organization's status (onboarding_started, or active), with its event
  const outcome = await deps.accounts.connect(deps.db, organizationId, input, sandbox, (tx) => moveStatus(tx, organizationId, policy));
  if (!outcome.ok && "issues" in outcome) throw validationError(outcome.issues.map((issue) => valueIssue(["body", issue.field], issue.message, issue.input)));
  if (!outcome.ok) throw badGateway(outcome.badGateway);
  const connected = await deps.accounts.status(deps.db, organizationId);
  if (!connected) throw notFound(deps.accounts.notConnected); // disconnected meanwhile
  return connected;
}

/** The connection as the seller sees it; `{ connected: false, test_processor }` while there is none. */
export async function connectionStatus(deps: ConnectionDeps, organizationId: string): Promise<StripeStatusWire> {
  const connected = await deps.accounts.status(deps.db, organizationId);
  return connected ?? { connected: false, test_processor: deps.testInLive === true || (await isSandbox(deps.db, organizationId)) };
}

/** Forgets the keys (the processor's endpoint removed); answers whether the processor removed its endpoint. */
export async function disconnect(deps: ConnectionDeps, organizationId: string, policy: StatusPolicy): Promise<{ endpoint_removed: boolean }> {
  // without a processor for real money an active organization cannot take live payments: its status moves back
  const removed = await deps.accounts.disconnect(deps.db, organizationId, (tx) => moveStatus(tx, organizationId, policy));
  if (!removed) throw notFound(deps.accounts.notConnected);
  return removed;
}
