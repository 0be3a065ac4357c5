// The seller's settings in a real Chromium against the real server: every section at its own address (the back
// button returns to the one before), every field of every section shown with its label; forms saved on their own
// with a toast and read back through the API (legal details, dunning, trials, customer emails, the portal), the
// API's refusal shown at the field it names; the team: an invitation sent and canceled after asking once more, a
// member's role changed and the member removed after asking. At a desktop's width and a phone's (where a checkbox
// stays beside its label); axe on every page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { joinAs } from "../auth/org-fixtures.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";
import { SETTINGS_FORMS } from "../../web/src/seller/pages/settings-fields.js";
import { SETTINGS_SECTIONS } from "../../web/src/seller/pages/settings-sections.js";

let server: TestServer;
let browser: Browser;
let seller: Seller;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchForPages()]);
  seller = await createSeller(server, "settings");
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await server?.close();
});

async function open(width: number): Promise<Page> {
  const { page, context } = await signedInPage(browser, server.url, seller.user.email, problems, { viewport: { width, height: 900 } });
  contexts.push(context);
  return page;
}

type Org = Record<string, Record<string, unknown>>;
const read = async (): Promise<Org> =>
  (await fetch(`${server.url}/v1/organizations/${seller.organizationId}`, { headers: { authorization: `Bearer ${seller.token}` } })).json() as Promise<Org>;
const toast = (page: Page, text: string) => page.locator(".toast").getByText(text).waitFor();
const form = (page: Page, name: string) => page.getByRole("form", { name });

describe("the seller's settings", () => {
  it("desktop: every section at its address with every field; saved one form at a time; the API's refusal at its field", async () => {
    const page = await open(1280);
    await page.goto("/settings?mode=live");
    await page.getByRole("heading", { level: 1, name: "Settings · Organization" }).waitFor();
    await page.getByTestId("org-status").waitFor();
    const nav = page.getByRole("navigation", { name: "Settings sections" });
    for (const s of SETTINGS_SECTIONS) {
      await nav.getByRole("link", { name: s.label, exact: true }).click();
      await page.waitForURL(new RegExp(`/settings/${s.slug}\\?`));
      await page.getByRole("heading", { level: 1, name: `Settings · ${s.label}` }).waitFor();
      expect(await nav.getByRole("link", { name: s.label, exact: true }).getAttribute("aria-current")).toBe("page");
      for (const f of (SETTINGS_FORMS[s.slug] ?? []).flatMap((x) => x.fields)) {
        await page.getByLabel(f.label, { exact: true }).waitFor();
      }
      if (s.slug === "team") await page.getByRole("region", { name: "The organization's members" }).getByRole("row", { name: new RegExp(`${seller.user.email} \\(you\\) .* Owner`) }).waitFor();
      await checkPage(page, `settings-${s.slug}`);
    }
    // the back button lands on the section before
    await page.goBack();
    await page.getByRole("heading", { level: 1, name: "Settings · Team" }).waitFor();

    // legal details: saved with a toast, read back
    await page.goto("/settings/legal?mode=live");
    const legal = form(page, "Legal details on invoices");
    await legal.getByLabel("Legal name").fill("Settings SAS");
    await legal.getByLabel("Street", { exact: true }).fill("1 rue de la Paix");
    await legal.getByLabel("Postal code").fill("75002");
    await legal.getByLabel("City").fill("Paris");
    await legal.getByLabel("Country").selectOption("FR");
    await legal.getByLabel("Tax id (e.g. VAT number)").fill("FR12345678901");
    await legal.getByRole("button", { name: "Save legal details" }).click();
    await toast(page, "Saved: legal details on invoices.");
    expect((await read()).invoice_details).toMatchObject({ name: "Settings SAS", tax_id: "FR12345678901", address: { city: "Paris", country: "FR", line1: "1 rue de la Paix" } });

    // the API's refusal at the field: a support email that is none
    await page.goto("/settings/organization?mode=live");
    const profile = form(page, "Profile");
    await profile.getByLabel("Support email").fill("not-an-email");
    await profile.getByRole("button", { name: "Save profile" }).click();
    const email = profile.getByLabel("Support email");
    await expect.poll(() => email.getAttribute("aria-invalid")).toBe("true");
    const describedBy = (await email.getAttribute("aria-describedby")) ?? "";
    expect(await page.locator(`[id="${describedBy.split(" ").pop()}"]`).innerText()).toMatch(/email/i);
    await checkPage(page, "settings-field-error");
    await email.fill("help@example.com");
    await profile.getByRole("button", { name: "Save profile" }).click();
    await toast(page, "Saved: profile.");
    expect((await read()).email).toBe("help@example.com");

    // failed payments and trials, each on its own
    await page.goto("/settings/dunning?mode=live");
    const dunning = form(page, "Failed renewals");
    await dunning.getByLabel("Retry after (days, comma-separated)").fill("2, 4");
    await dunning.getByLabel("After the last retry").selectOption("unpaid");
    await dunning.getByRole("button", { name: "Save dunning" }).click();
    await toast(page, "Saved: failed renewals.");
    expect((await read()).dunning_settings).toEqual({ retry_intervals_days: [2, 4], final_action: "unpaid" });
    await page.goto("/settings/plans?mode=live");
    const trials = form(page, "Trials");
    await trials.getByLabel("A trial may start without a card").check();
    await trials.getByLabel("Remind the customer this many days before a trial ends").fill("5");
    await trials.getByLabel("One trial per customer").check();
    await trials.getByRole("button", { name: "Save trials" }).click();
    await toast(page, "Saved: trials.");
    const org = await read();
    expect(org.plan_settings).toMatchObject({ trials_without_card: true, trial_reminder_days: 5 });
    expect(org.subscription_settings).toMatchObject({ prevent_trial_abuse: true, allow_multiple_subscriptions: false, proration_behavior: "prorate" });

    await page.goto("/settings/emails?mode=live");
    const emails = form(page, "Customer emails");
    await emails.getByLabel("Renewal receipt").uncheck();
    await emails.getByRole("button", { name: "Save customer emails" }).click();
    await toast(page, "Saved: customer emails.");
    expect((await read()).customer_email_settings).toMatchObject({ subscription_cycled: false, order_confirmation: true });
    expect(problems).toEqual([]);
  }, 240_000);

  it("phone: every section fits; the portal saved; the team's invitation canceled after asking, a role changed, a member removed", async () => {
    const page = await open(375);
    for (const s of SETTINGS_SECTIONS) {
      await page.goto(`/settings/${s.slug}?mode=live`);
      await page.getByRole("heading", { level: 1, name: `Settings · ${s.label}` }).waitFor();
      await page.getByText(s.intro).waitFor();
      await checkPage(page, `phone-settings-${s.slug}`);
      // a checkbox beside its label, however long: none of the labels begins below its box
      const below = await page.locator(".field.checkbox").evaluateAll((fields) =>
        fields.flatMap((f) => {
          const box = f.querySelector("input")?.getBoundingClientRect();
          const label = f.querySelector("label");
          return box && label && label.getBoundingClientRect().top >= box.bottom ? [label.textContent ?? ""] : [];
        }),
      );
      expect(below, s.slug).toEqual([]);
    }
    await page.goto("/settings/portal?mode=live");
    await page.getByLabel("Change their email").uncheck();
    await page.getByRole("button", { name: "Save portal" }).click();
    await toast(page, "Saved: what customers may do.");
    expect((await read()).customer_portal_settings).toMatchObject({ customer: { allow_email_change: false }, usage: { show: true } });

    // an invitation, then canceled: Escape first changes nothing
    await page.goto("/settings/team?mode=live");
    await page.getByText("No pending invitations.").waitFor();
    const invite = form(page, "Invite someone");
    await invite.getByLabel("Email").fill("ann@example.com");
    await invite.getByLabel("Role").selectOption("admin");
    await invite.getByRole("button", { name: "Send the invitation" }).click();
    await toast(page, "Invited ann@example.com");
    const invitations = async () =>
      (await seller.client.get<Array<{ email: string; role: string; status: string }>>(`/api/auth/organization/list-invitations?organizationId=${seller.organizationId}`)).body;
    expect(await invitations()).toMatchObject([{ email: "ann@example.com", role: "admin", status: "pending" }]);
    await page.getByRole("button", { name: "Actions for the invitation of ann@example.com" }).click();
    await page.getByRole("menuitem", { name: "Cancel invitation…" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel the invitation of ann@example.com?" });
    await dialog.waitFor();
    await checkPage(page, "phone-team-cancel-dialog");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect((await invitations())[0]?.status).toBe("pending");
    await page.getByRole("button", { name: "Actions for the invitation of ann@example.com" }).click();
    await page.getByRole("menuitem", { name: "Cancel invitation…" }).click();
    await dialog.getByRole("button", { name: "Yes, cancel it" }).click();
    await toast(page, "Canceled the invitation of ann@example.com.");
    expect((await invitations())[0]?.status).toBe("canceled");

    // a member: made admin, then removed
    const bob = await joinAs(server, seller.client, seller.organizationId, "member", "bob");
    const members = async () =>
      (await seller.client.get<{ members: Array<{ role: string; user: { email: string } }> }>(`/api/auth/organization/list-members?organizationId=${seller.organizationId}`)).body.members;
    await page.reload();
    await page.getByRole("button", { name: `Actions for ${bob.email}` }).click();
    await page.getByRole("menuitem", { name: "Change role…" }).click();
    const roleDialog = page.getByRole("dialog", { name: `Change ${bob.email}'s role` });
    await roleDialog.getByLabel("Role").selectOption("admin");
    await checkPage(page, "phone-team-role-dialog");
    await roleDialog.getByRole("button", { name: "Save the role" }).click();
    await toast(page, `${bob.email} is now Admin.`);
    expect((await members()).find((m) => m.user.email === bob.email)?.role).toBe("admin");
    await page.getByRole("button", { name: `Actions for ${bob.email}` }).click();
    await page.getByRole("menuitem", { name: "Remove…" }).click();
    await page.getByRole("dialog", { name: `Remove ${bob.email}?` }).getByRole("button", { name: "Yes, remove them" }).click();
    await toast(page, `Removed ${bob.email}.`);
    expect((await members()).map((m) => m.user.email)).toEqual([seller.user.email]);
    await checkPage(page, "phone-team");
    expect(problems).toEqual([]);
  }, 240_000);
});
