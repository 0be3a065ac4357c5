// The failover drill's load (ops/failover/drill.ts): ingest batches and checkout purchases paid with the test
// processor's card, sent to till on loopback like a client that retries an answer it did not get, each loop bounded
// in count and by a stop signal. What it keeps is what the server acknowledged, and when each request was sent and
// answered, so the drill can tell how long writes failed and check that nothing acknowledged was lost.
import { paymentPurpose, tokenizeTestCard } from "../../server/payments/test-processor.js";

/** Far above any answer of a server that works (a reconnect to the new leader included). */
const REQUEST_TIMEOUT_MS = 20_000;
/** A client's pause before it sends again what failed (a 503's Retry-After is 1 s; this is a busier client). */
const RETRY_PAUSE_MS = 100;
/** Per loop, whatever the stop signal says. */
const MAX_ROUNDS = 5_000;
const BATCH = 20;

export interface Answer {
  status: number;
  body: string;
}

/** One JSON request; no answer (refused, reset, timed out) is status 0 with the reason as its body. */
export async function send(url: string, method: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  try {
    const res = await fetch(url, {
      method,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.text() };
  } catch (err) {
    return { status: 0, body: String((err as Error).cause ?? err) };
  }
}

/** A write that succeeded: when it was sent and when its answer came (ms since the epoch). */
export interface Success {
  sentAt: number;
  answeredAt: number;
}

export interface LoadRecord {
  /** The external ids of every event in a batch answered 200. */
  acknowledgedEvents: string[];
  /** Checkouts whose confirm answered 200: each must have exactly one paid order. */
  paidCheckouts: string[];
  /** Checkouts whose confirm went unanswered and whose retry was refused: paid once, or not at all. */
  unsureCheckouts: string[];
  successes: Success[];
  /** How many answers of each status were not a success ("0" is no answer). */
  failures: Record<string, number>;
  /** Up to a few bodies of answers that were neither a success nor a 503 nor no answer. */
  oddAnswers: string[];
  requests: number;
}

export function emptyRecord(): LoadRecord {
  return { acknowledgedEvents: [], paidCheckouts: [], unsureCheckouts: [], successes: [], failures: {}, oddAnswers: [], requests: 0 };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends until the answer is not a 503 or no answer (a client retrying a failover out), or until stop(). */
async function untilAnswered(record: LoadRecord, stop: () => boolean, attempt: () => Promise<Answer>): Promise<{ answer: Answer; sentAt: number; retried: boolean }> {
  let retried = false;
  for (;;) {
    const sentAt = Date.now();
    const answer = await attempt();
    record.requests += 1;
    if (answer.status !== 503 && answer.status !== 0) return { answer, sentAt, retried };
    record.failures[String(answer.status)] = (record.failures[String(answer.status)] ?? 0) + 1;
    if (stop()) return { answer, sentAt, retried };
    retried = true;
    await pause(RETRY_PAUSE_MS);
  }
}

function unexpected(record: LoadRecord, what: string, answer: Answer): void {
  record.failures[String(answer.status)] = (record.failures[String(answer.status)] ?? 0) + 1;
  if (record.oddAnswers.length < 5) record.oddAnswers.push(`${what}: ${answer.status} ${answer.body.slice(0, 200)}`);
}

export interface Target {
  base: string;
  apiKey: string;
  /** The events' name: the drill's run, so its events are told from any other. */
  run: string;
  productId: string;
}

/** Ingests batches of BATCH events, a batch that failed sent again as it was (its external ids dedupe it). */
export async function ingestLoop(t: Target, worker: number, record: LoadRecord, stop: () => boolean): Promise<void> {
  const auth = { authorization: `Bearer ${t.apiKey}` };
  for (let round = 0; round < MAX_ROUNDS && !stop(); round++) {
    const ids = Array.from({ length: BATCH }, (_, j) => `${t.run}-${worker}-${round}-${j}`);
    const events = ids.map((id) => ({ name: t.run, external_customer_id: `drill-${worker}`, external_id: id, metadata: { worker } }));
    const { answer, sentAt } = await untilAnswered(record, stop, () => send(`${t.base}/v1/events/ingest`, "POST", { events }, auth));
    if (answer.status === 200) {
      record.acknowledgedEvents.push(...ids);
      record.successes.push({ sentAt, answeredAt: Date.now() });
    } else if (answer.status !== 503 && answer.status !== 0) unexpected(record, "ingest", answer);
  }
}

/** Buys the product: a checkout through the API, the test card tokenized here, the confirm sent until answered. */
export async function buyLoop(t: Target, worker: number, record: LoadRecord, stop: () => boolean): Promise<void> {
  const auth = { authorization: `Bearer ${t.apiKey}` };
  const card = { number: "4242424242424242", exp_month: 12, exp_year: new Date().getUTCFullYear() + 2, cvc: "123" };
  for (let round = 0; round < MAX_ROUNDS && !stop(); round++) {
    const made = await untilAnswered(record, stop, () => send(`${t.base}/v1/checkouts/`, "POST", { products: [t.productId] }, auth));
    if (made.answer.status !== 201 && made.answer.status !== 200) {
      if (made.answer.status !== 503 && made.answer.status !== 0) unexpected(record, "checkout", made.answer);
      continue;
    }
    const checkout = JSON.parse(made.answer.body) as { id: string; client_secret: string };
    const token = tokenizeTestCard(card, paymentPurpose({ checkout_id: checkout.id }));
    if (!token.ok) throw new Error(`the test card was refused: ${token.message}`);
    const body = {
      customer_email: `drill-${worker}-${round}@example.com`,
      customer_name: "Drill Buyer",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: token.token,
    };
    const url = `${t.base}/v1/checkouts/client/${checkout.client_secret}/confirm`;
    const confirmed = await untilAnswered(record, stop, () => send(url, "POST", body));
    if (confirmed.answer.status === 200) {
      record.paidCheckouts.push(checkout.id);
      record.successes.push({ sentAt: confirmed.sentAt, answeredAt: Date.now() });
    } else if (confirmed.retried || confirmed.answer.status === 503 || confirmed.answer.status === 0) {
      // a confirm whose first answer was lost may have been paid: checked afterwards for one payment at most
      record.unsureCheckouts.push(checkout.id);
      if (confirmed.answer.status !== 503 && confirmed.answer.status !== 0) record.failures[String(confirmed.answer.status)] = (record.failures[String(confirmed.answer.status)] ?? 0) + 1;
    } else unexpected(record, "confirm", confirmed.answer);
  }
}
