// A detail page's timeline: what happened to the object (an order, a subscription, a customer), newest first —
// the events its changes recorded, the webhooks sent for them (and how each delivery went), the emails to the
// customer — read from till's GET …/{id}/timeline, each named in a seller's words (words.ts). An object with
// nothing yet says where the entries come from.
import { v1 } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Loading } from "../parts.js";
import { href } from "../url.js";
import { eventWords, readable } from "../words.js";
import { Empty } from "./Empty.js";
import "../sales.css";

export interface TimelineEntry {
  id: string;
  at: string;
  source: "event" | "webhook" | "email";
  type: string;
  target: string | null;
  status: "sent" | "failed" | "pending" | "skipped" | null;
  attempts: number | null;
  http_code: number | null;
  endpoint_id: string | null;
}

const SOURCE = { event: "Event", webhook: "Webhook", email: "Email" };
const STATUS = { sent: "delivered", failed: "failed", pending: "pending", skipped: "skipped (endpoint disabled)" };
const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

function What({ e }: { e: TimelineEntry }) {
  const how = e.status ? STATUS[e.status] : null;
  if (e.source === "event") return <>{eventWords(e.type)}</>;
  if (e.source === "email") return <>{`${readable(e.type)} to ${e.target ?? "the customer"}${how ? `: ${how}` : ""}`}</>;
  const answer = e.http_code ? ` (HTTP ${e.http_code}${e.attempts && e.attempts > 1 ? `, ${e.attempts} attempts` : ""})` : "";
  // a webhook is a developer's matter too: its type stays beside the words, as the endpoint receives it
  return (
    <>
      {`${eventWords(e.type)} `}
      <code>{e.type}</code>
      {" to "}
      {e.endpoint_id ? <a href={href(`/webhooks/${e.endpoint_id}`)}>{e.target}</a> : e.target}
      {how ? `: ${how}${answer}` : ""}
    </>
  );
}

/** `path` is the object's, e.g. "/orders/<id>". */
export function Timeline({ path, label }: { path: string; label: string }) {
  const { scope } = useSeller();
  const loaded = useLoad(() => v1<{ items: TimelineEntry[] }>(scope, "GET", `${path}/timeline`), path);
  const items = loaded.data?.items ?? [];
  return (
    <section aria-labelledby="timeline-h" className="timeline">
      <h2 id="timeline-h">Timeline</h2>
      <Loading loading={loaded.loading} error={loaded.error} />
      {loaded.data && items.length === 0 && (
        <Empty title="Nothing recorded yet." command="till listen">
          The events of this {label}, the webhooks sent for them and the emails to the customer show here as they happen.
        </Empty>
      )}
      {items.length > 0 && (
        <ol className="timeline-list" aria-label={`What happened to this ${label}`}>
          {items.map((e) => (
            <li key={`${e.source}-${e.id}`} className={`timeline-item ${e.source}${e.status === "failed" ? " failed" : ""}`}>
              <span className="timeline-source">{SOURCE[e.source]}</span>
              <span className="timeline-what">
                <What e={e} />
              </span>
              <time dateTime={e.at} className="timeline-at">
                {when(e.at)}
              </time>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
