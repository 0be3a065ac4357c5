// Every setting the API takes on the organization (PATCH /v1/organizations/{id}) is on some section of the seller's
// settings (web/src/seller/pages/settings-fields.ts), down to each key of its nested settings as GET answers them;
// the few that are not are named here with where they are instead. And a form's values go back as the API's body.
import { describe, expect, it } from "vitest";
import { OrganizationUpdateInput } from "../../server/billing/organizations/service.js";
import { toOrganizationWire, type OrganizationRow } from "../../server/billing/organizations/wire.js";
import { bodyOf, fieldOfError, valuesOf, type FieldSpec } from "../../web/src/seller/kit/fields.js";
import { SETTINGS_FORMS, settingsPaths } from "../../web/src/seller/pages/settings-fields.js";
import { SETTINGS_SECTIONS } from "../../web/src/seller/pages/settings-sections.js";

/** Reached another way than a settings field, and where. */
const ELSEWHERE: Record<string, string> = {
  details: "the business details form of the organization's status (Organization section)",
  "tax_settings.registrations": "the tax registrations list (Tax section)",
  "tax_settings.prices_include_tax": "the tax registrations form (Tax section)",
  // Polar's keys for emails till never sends (shared/customer-emails.ts): nothing offers to switch them
  "customer_email_settings.subscription_paused": "not sent by till",
  "customer_email_settings.subscription_resumed": "not sent by till",
  "customer_email_settings.subscription_renewal_reminder": "not sent by till",
  "customer_email_settings.subscription_trial_conversion_reminder": "not sent by till",
};

function leaves(value: unknown, path: string): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [path];
  return Object.entries(value).flatMap(([k, v]) => leaves(v, `${path}.${k}`));
}

describe("the seller's settings", () => {
  it("offers every key the API takes, in some section", () => {
    const row = { id: "o", name: "Org", slug: "org", logo: null, createdAt: new Date(), metadata: null } as unknown as OrganizationRow;
    const wire = toOrganizationWire(row, undefined) as unknown as Record<string, unknown>;
    const offered = settingsPaths();
    const covered = (p: string) => p in ELSEWHERE || offered.some((o) => o === p || o.startsWith(`${p}.`) || p.startsWith(`${o}.`));
    const keys = Object.keys(OrganizationUpdateInput.shape).flatMap((k) => leaves(wire[k], k));
    expect(keys.length).toBeGreaterThan(40);
    expect(keys.filter((k) => !covered(k))).toEqual([]);
    // and nothing offered that the API does not take
    const taken = new Set(Object.keys(OrganizationUpdateInput.shape));
    expect(offered.filter((p) => !taken.has(p.split(".")[0] ?? ""))).toEqual([]);
  });

  it("labels every field in words, and gives each section an address", () => {
    for (const forms of Object.values(SETTINGS_FORMS)) {
      for (const f of forms.flatMap((x) => x.fields)) expect(f.label, f.path).not.toMatch(/_/);
    }
    expect(SETTINGS_SECTIONS.map((s) => s.slug)).toEqual(["organization", "legal", "payments", "tax", "dunning", "plans", "portal", "emails", "team", "developers"]);
  });

  it("reads values into the form and sends them back as the API's body; a 422's path finds its field", () => {
    const fields: FieldSpec[] = [
      { path: "dunning_settings.retry_intervals_days", label: "Retry", kind: "days" },
      { path: "dunning_settings.final_action", label: "After", kind: "select" },
      { path: "invoice_details.address.city", label: "City", kind: "text" },
      { path: "plan_settings.trial_reminder_days", label: "Days", kind: "number" },
      { path: "socials", label: "Links", kind: "links" },
    ];
    const org = {
      dunning_settings: { retry_intervals_days: [3, 5], final_action: "cancel" },
      invoice_details: { address: null },
      plan_settings: { trial_reminder_days: 3 },
      socials: [{ platform: "github", url: "https://github.com/till" }],
    };
    const values = valuesOf(fields, org);
    expect(values).toEqual({
      dunning_settings: { retry_intervals_days: "3, 5", final_action: "cancel" },
      invoice_details: { address: { city: "" } },
      plan_settings: { trial_reminder_days: "3" },
      socials: "https://github.com/till",
    });
    expect(bodyOf(fields, { ...values, socials: "https://x.com/till\nhttps://example.com" })).toEqual({
      dunning_settings: { retry_intervals_days: [3, 5], final_action: "cancel" },
      invoice_details: { address: { city: null } },
      plan_settings: { trial_reminder_days: 3 },
      socials: [{ platform: "x", url: "https://x.com/till" }, { platform: "other", url: "https://example.com" }],
    });
    expect(fieldOfError(fields, "dunning_settings.retry_intervals_days.1")?.label).toBe("Retry");
    expect(fieldOfError(fields, "invoice_details.address")?.label).toBe("City");
    expect(fieldOfError(fields, "name")).toBeUndefined();
  });
});
