// Accessibility of the pages beside the checkout, in a real Chromium against the real server: axe-core's WCAG
// A/AA rules find no serious or critical violation on the sign-in page (empty and after a refused sign-in),
// the device page in its states (enter a code, review, approved, denied, unknown code), the customer portal
// (its email sign-in and a customer's purchases) and the authentication error page (a known code, none),
// each in the light and the dark colour scheme. Also: the error page wears the app's look in both schemes and
// explains the common codes in one line.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProduct, pay } from "../helpers/checkout.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { closePages, launchForPages, seriousViolations, type AxeFinding } from "../helpers/browser.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

const PASSWORD = "correct-horse-battery";
const SCHEMES = ["light", "dark"] as const;
type Scheme = (typeof SCHEMES)[number];

let server: TestServer;
let browser: Browser;
let seller: Seller;
let customerId: string;
let email: string;

beforeAll(async () => {
  browser = await launchForPages();
  server = await startServer();
  seller = await createSeller(server, "a11y");
  const product = await createProduct(seller, "monthly");
  const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
  await pay(server, checkout);
  const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  customerId = order!.customerId;
  email = uniqueEmail("a11y-user");
  await new Client(server.url).signUp(email, PASSWORD, "Ada Tester");
}, 120_000);

afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

async function pageIn(scheme: Scheme, signedIn = false): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.url, colorScheme: scheme, locale: "en-US", timezoneId: "UTC" });
  context.setDefaultTimeout(10_000);
  if (signedIn) {
    const res = await context.request.post("/api/auth/sign-in/email", { data: { email, password: PASSWORD }, headers: { origin: server.url } });
    expect(res.status()).toBe(200);
  }
  return context.newPage();
}

const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name, exact: true }).waitFor();

async function deviceCode(): Promise<string> {
  const res = await new Client(server.url).post<{ user_code: string }>("/api/auth/device/code", { client_id: "till-cli", scope: "openid profile" });
  expect(res.status).toBe(200);
  return res.body.user_code;
}

/** Each page state to check: how to reach it in a fresh page. */
const STATES: Array<[string, () => Promise<Page>]> = [
  [
    "sign-in",
    async () => {
      const page = await pageIn("light");
      await page.goto("/sign-in");
      await heading(page, "Sign in");
      return page;
    },
  ],
  [
    "sign-in, refused",
    async () => {
      const page = await pageIn("light");
      await page.goto("/sign-in");
      await page.getByLabel("Email or username", { exact: true }).fill(email);
      await page.getByLabel("Password", { exact: true }).fill("wrong-password-here");
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.getByRole("alert").waitFor();
      return page;
    },
  ],
  [
    "device, enter a code",
    async () => {
      const page = await pageIn("light", true);
      await page.goto("/device");
      await heading(page, "Connect a device");
      return page;
    },
  ],
  [
    "device, review",
    async () => {
      const page = await pageIn("light", true);
      await page.goto(`/device?user_code=${await deviceCode()}`);
      await heading(page, "Approve this device?");
      return page;
    },
  ],
  [
    "device, approved",
    async () => {
      const page = await pageIn("light", true);
      await page.goto(`/device?user_code=${await deviceCode()}`);
      await page.getByRole("button", { name: "Approve" }).click();
      await heading(page, "Device approved");
      return page;
    },
  ],
  [
    "device, denied",
    async () => {
      const page = await pageIn("light", true);
      await page.goto(`/device?user_code=${await deviceCode()}`);
      await page.getByRole("button", { name: "Deny" }).click();
      await heading(page, "Request denied");
      return page;
    },
  ],
  [
    "device, unknown code",
    async () => {
      const page = await pageIn("light", true);
      await page.goto("/device?user_code=ZZZZ2222");
      await heading(page, "Code not found");
      return page;
    },
  ],
  [
    "portal, email sign-in",
    async () => {
      const page = await pageIn("light");
      await page.goto(`/portal?organization=${seller.slug}`);
      await page.getByRole("heading", { level: 1 }).waitFor();
      await page.getByRole("textbox").first().waitFor();
      return page;
    },
  ],
  [
    "portal, purchases",
    async () => {
      const session = await seller.sdk.customerSessions.create({ customerId });
      const page = await pageIn("light");
      await page.goto(session.customerPortalUrl);
      await heading(page, "Your purchases");
      await page.getByRole("region", { name: "Subscriptions", exact: true }).waitFor();
      await page.getByRole("region", { name: "Orders", exact: true }).getByRole("listitem").first().waitFor();
      return page;
    },
  ],
  [
    "error page, a known code",
    async () => {
      const page = await pageIn("light");
      await page.goto("/api/auth/error?error=state_mismatch");
      await heading(page, "Authentication Error");
      return page;
    },
  ],
  [
    "error page, no code",
    async () => {
      const page = await pageIn("light");
      await page.goto("/api/auth/error");
      await heading(page, "Authentication Error");
      return page;
    },
  ],
];

describe("axe: no serious or critical violations", () => {
  // each state is reached once, in the light scheme, and checked in both: the dark one is the same document with
  // the media feature switched (emulateMedia), as a reader's system setting switches it
  it("on every page state, light and dark", async () => {
    const found: Record<string, AxeFinding[]> = {};
    for (const [name, open] of STATES) {
      const page = await open();
      try {
        const backgrounds = new Set<string>();
        for (const scheme of SCHEMES) {
          await page.emulateMedia({ colorScheme: scheme });
          backgrounds.add(await page.evaluate(() => getComputedStyle(document.body).backgroundColor));
          const violations = await seriousViolations(page);
          if (violations.length > 0) found[`${name}, ${scheme}`] = violations;
        }
        // the page did take the dark palette
        expect(backgrounds.size, name).toBe(2);
      } finally {
        await page.context().close();
      }
    }
    expect(found).toEqual({});
  }, 240_000);
});

describe("the authentication error page", () => {
  it("wears the app's look, light and dark, and explains a known code in one line", async () => {
    const colours: Record<string, string> = {};
    for (const scheme of SCHEMES) {
      const page = await pageIn(scheme);
      await page.goto("/api/auth/error?error=state_mismatch");
      await heading(page, "Authentication Error");
      colours[scheme] = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      // the app's frame: its header with the brand, the main card
      expect(await page.locator("header.site a.brand").textContent()).toBe("till");
      expect(await page.locator("main").evaluate((m) => getComputedStyle(m).borderRadius)).not.toBe("0px");
      expect(await page.getByText("The sign-in was started in another browser or tab; start it again from this one.").count()).toBe(1);
      expect(await page.getByText("Error Code: state_mismatch").count()).toBe(1);
      await page.context().close();
    }
    // the app's palette: --bg of web/src/styles.css in each scheme
    expect(colours).toEqual({ light: "rgb(246, 247, 249)", dark: "rgb(17, 20, 24)" });

    // an unknown code gets no explanation line, only the spec's text
    const res = await fetch(`${server.url}/api/auth/error?error=made_up_code`);
    const html = await res.text();
    expect(html).toContain("Error Code: <code>made_up_code</code>");
    expect(html).not.toContain('class="status error"');
    const upper = await (await fetch(`${server.url}/api/auth/error?error=INVALID_TOKEN`)).text();
    expect(upper).toContain("The link is not valid or was already used; ask for a new one.");
  });
});
