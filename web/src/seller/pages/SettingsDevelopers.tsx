// /settings/developers: where the API keys and the webhook endpoints are, and the sandbox's test clock (GET and
// POST /v1/test-clock/advance, as `till clock advance 31d`): moving the sandbox's time forward makes the renewals,
// trial ends and expiries due on the way happen, with their orders, webhooks and emails. Time only goes forward,
// so an advance asks once more. Live has no test clock: the page says how to reach the sandbox's.
import { useState, type FormEvent } from "react";
import { DURATION_EXAMPLES, parseClockDuration } from "../../../../shared/clock-durations.js";
import { Field } from "../../ui.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { Facts, Loading, ReadOnly } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href } from "../url.js";

interface TestClock {
  now: string;
  offset_ms: number;
  advanced_at: string | null;
  from?: string;
  renewals?: number;
  expired_checkouts?: number;
}

const when = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

/** How far the sandbox is ahead of the wall clock, in days and hours. */
function ahead(ms: number): string {
  const hours = Math.round(ms / 3_600_000);
  if (hours < 1) return "on the wall clock";
  const days = Math.floor(hours / 24);
  return `${days ? `${days} day${days === 1 ? "" : "s"} ` : ""}${hours % 24 ? `${hours % 24} h ` : ""}ahead of the wall clock`;
}

function Clock() {
  const { scope } = useSeller();
  const toast = useToast();
  const mayWrite = useMayWrite("subscriptions");
  const clock = useLoad(() => v1<TestClock>(scope, "GET", "/test-clock"), "clock");
  const [by, setBy] = useState("");
  const [asking, setAsking] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const v = by.trim().toLowerCase();
    if (!parseClockDuration(v)) return setError(`Give a duration such as ${DURATION_EXAMPLES}.`);
    setError(undefined);
    setAsking(v);
  };
  async function advance(v: string) {
    const r = await v1<TestClock>(scope, "POST", "/test-clock/advance", { body: { by: v } });
    if (!r.ok) return setError(r.error.fields?.[0]?.message ?? r.error.message);
    const n = r.data.renewals ?? 0;
    toast(`Sandbox time is now ${when(r.data.now)}: ${n} renewal${n === 1 ? "" : "s"} on the way.`);
    setBy("");
    clock.reload();
  }
  return (
    <section className="form-section" aria-labelledby="clock-h">
      <h2 id="clock-h">Test clock</h2>
      <p className="hint">Move the sandbox&apos;s time forward to see renewals, trial ends and expiries happen now rather than in a month.</p>
      <Loading loading={clock.loading} error={clock.error} />
      {clock.data && (
        <Facts
          items={[
            ["Sandbox time", when(clock.data.now)],
            ["Ahead", ahead(clock.data.offset_ms)],
            ["Last advanced", clock.data.advanced_at ? when(clock.data.advanced_at) : "never"],
          ]}
        />
      )}
      {mayWrite ? (
        <form onSubmit={onSubmit} aria-label="Advance the clock" className="stack" noValidate>
          <Field
            label="Advance by" name="by" value={by} onChange={(e) => setBy(e.target.value)} autoComplete="off" error={error}
            hint={`${DURATION_EXAMPLES}. From a terminal: till clock advance 31d`}
          />
          <button type="submit" className="primary">
            Advance the clock…
          </button>
        </form>
      ) : (
        <ReadOnly what="move the sandbox's clock" />
      )}
      {asking && (
        <Confirm
          trigger={null}
          open
          danger={false}
          onOpenChange={(o) => !o && setAsking(null)}
          title={`Advance the sandbox's clock by ${asking}?`}
          body="The renewals due on the way happen, in order, each with its order, webhooks and emails. The sandbox's time cannot go back."
          confirm={`Advance by ${asking}`}
          onConfirm={() => advance(asking)}
        />
      )}
    </section>
  );
}

export function DeveloperSettings() {
  const { mode } = useSeller();
  return (
    <>
      <section className="form-section" aria-labelledby="dev-links-h">
        <h2 id="dev-links-h">API and webhooks</h2>
        <ul className="settings-links">
          <li>
            <a href={href("/api-keys")}>API keys</a>: make keys for your code and the CLI, with the scopes they need.
          </li>
          <li>
            <a href={href("/webhooks")}>Webhooks</a>: endpoints that receive your events, and what was delivered to them.
          </li>
        </ul>
      </section>
      {mode === "sandbox" ? (
        <Clock />
      ) : (
        <section className="form-section" aria-labelledby="clock-h">
          <h2 id="clock-h">Test clock</h2>
          <p>
            Live time cannot be moved. The sandbox has a test clock: <a href={href("/settings/developers", {}, { mode: "sandbox" })}>open it in the sandbox</a>.
          </p>
        </section>
      )}
    </>
  );
}
