// The settings' status: where the organization stands on its way to live payments (GET
// /v1/organizations/{id}/status: created, onboarding_started, under_review, denied, active), each step done or to
// do, a denial's reason, the next step (a link to the section that does it where it is another one); and the
// business details form that submits them (PATCH `details`, as `till orgs submit`). A sandbox is active from the
// start and shows no steps.
import { useState, type FormEvent } from "react";
import { Status, TextAreaField, type Tone } from "../../ui.js";
import { v1 } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Loading, ReadOnly } from "../parts.js";
import { href } from "../url.js";

interface Step {
  step: string;
  done: boolean;
  text: string;
  command: string | null;
}

interface StatusReport {
  status: string;
  lifecycle_status: string;
  sandbox: boolean;
  test_payments: boolean;
  live_payments: boolean;
  review: { status: string | null; reason: string | null };
  steps: Step[];
  next_step: Step | null;
}

const LABELS: Record<string, string> = {
  created: "Created",
  onboarding_started: "Onboarding started",
  under_review: "Under review",
  denied: "Denied",
  active: "Active",
};

function BusinessDetails({ organizationId, onDone }: { organizationId: string; onDone: () => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const value = (name: string) => String(f.get(name) ?? "").trim();
    const details = { about: value("about"), product_description: value("product_description"), intended_use: value("intended_use") };
    setSaid({ tone: "info", text: "Submitting…" });
    const r = await v1<unknown>(scope, "PATCH", `/organizations/${organizationId}`, { body: { details } });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: "Submitted." });
    onDone();
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label="Business details" className="stack">
      <TextAreaField label="About your business" name="about" required rows={2} />
      <TextAreaField label="What you sell" name="product_description" required rows={2} />
      <TextAreaField label="How you will use till" name="intended_use" required rows={2} />
      <button type="submit" className="primary">
        Submit business details
      </button>
      <Status tone={said?.tone}>{said?.text}</Status>
    </form>
  );
}

export function OrganizationStatus({ organizationId, mayWrite }: { organizationId: string; mayWrite: boolean }) {
  const { scope } = useSeller();
  const loaded = useLoad(() => v1<StatusReport>(scope, "GET", `/organizations/${organizationId}/status`), `status-${organizationId}`);
  const r = loaded.data;
  const submitting = r && !r.sandbox && r.steps.some((s) => s.step === "business_details" && !s.done);
  return (
    <section aria-labelledby="status-h">
      <h2 id="status-h">Status</h2>
      <Loading loading={loaded.loading} error={loaded.error} />
      {r && (
        <>
          <p>
            <strong data-testid="org-status">{LABELS[r.status] ?? r.status}</strong>
            {r.sandbox
              ? " — a sandbox takes test payments from the start."
              : r.live_payments
                ? " — this organization takes live payments."
                : " — live checkouts of paid products are refused until the steps below are done."}
          </p>
          {r.test_payments && !r.sandbox && r.lifecycle_status !== "active" && (
            <p className="hint">This server runs with TILL_TEST_PAYMENTS=live: every organization is active; with real money this one would be {LABELS[r.lifecycle_status] ?? r.lifecycle_status}.</p>
          )}
          {r.steps.length > 0 && (
            <ul aria-label="Steps to live payments">
              {r.steps.map((s) => (
                <li key={s.step}>
                  {s.done ? "✓ " : "○ "}
                  {s.text}
                </li>
              ))}
            </ul>
          )}
          {r.review.status === "denied" && r.review.reason && (
            <p className="warning" role="note">
              A platform admin denied your details: {r.review.reason}
            </p>
          )}
          {r.next_step && (
            <p data-testid="next-step">
              Next step:{" "}
              {r.next_step.step === "payment_processor" ? <a href={href("/settings/payments")}>{r.next_step.text}</a> : r.next_step.text}
              {r.next_step.command && (
                <>
                  {" "}
                  (<code>{r.next_step.command}</code>)
                </>
              )}
            </p>
          )}
          {submitting && mayWrite && <BusinessDetails organizationId={organizationId} onDone={loaded.reload} />}
          {submitting && !mayWrite && <ReadOnly what="submit the business details" />}
        </>
      )}
    </section>
  );
}
