// The import's routes (/v1/stripe/imports) as a test calls them, against a server at `url` with a seller's key:
// start a run and wait until it rests, read its items, find one.
import type { ImportItemWire, StripeImportWire } from "../../shared/stripe-import.js";
import { rawRequest } from "./api.js";

export interface ImportClient {
  /** A request that must succeed (else it throws with the answer). */
  api<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** Waits until the run is in one of `statuses`, looking every quarter of a second. */
  settled(id: string, statuses: string[], timeoutMs?: number): Promise<StripeImportWire>;
  /** Starts a run and waits until it rests (planned, succeeded, failed). */
  runImport(dryRun: boolean, timeoutMs?: number): Promise<StripeImportWire>;
  itemsOf(runId: string): Promise<ImportItemWire[]>;
}

export function importClient(server: () => { url: string }, key: () => string): ImportClient {
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await rawRequest(server().url, key(), method, `/v1${path}`, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as T;
  };
  async function settled(id: string, statuses: string[], timeoutMs = 60_000): Promise<StripeImportWire> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      await new Promise((r) => setTimeout(r, 250));
      const last = await api<StripeImportWire>("GET", `/stripe/imports/${id}`);
      if (statuses.includes(last.status)) return last;
      if (Date.now() > end) throw new Error(`timed out waiting for import ${id} to be ${statuses.join(" or ")}: ${JSON.stringify(last)}`);
    }
  }
  return {
    api,
    settled,
    async runImport(dryRun, timeoutMs) {
      const started = await api<StripeImportWire>("POST", "/stripe/imports", { dry_run: dryRun });
      return settled(started.id, ["planned", "succeeded", "failed"], timeoutMs);
    },
    async itemsOf(runId) {
      const out: ImportItemWire[] = [];
      for (let page = 1; ; page += 1) {
        const res = await api<{ items: ImportItemWire[]; pagination: { max_page: number } }>("GET", `/stripe/imports/${runId}/items?limit=100&page=${page}`);
        out.push(...res.items);
        if (page >= res.pagination.max_page) return out;
      }
    },
  };
}

/** The run's item of `kind` for the Stripe object `stripeId` (throws, naming those there are, when none). */
export function itemOf(items: ImportItemWire[], kind: string, stripeId: string): ImportItemWire {
  const found = items.find((i) => i.kind === kind && i.stripe_id === stripeId);
  if (!found) throw new Error(`no ${kind} item ${stripeId}: ${JSON.stringify(items.filter((i) => i.kind === kind).map((i) => i.stripe_id))}`);
  return found;
}
