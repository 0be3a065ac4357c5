// Headless Chromium for the page tests (the Debian package at /usr/bin/chromium) and the accessibility check
// every page test may run: axe-core's WCAG A/AA rules, failing on serious and critical violations.
import { existsSync } from "node:fs";
import { AxeBuilder } from "@axe-core/playwright";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";
import { isWebBuildFresh } from "../../web/build.js";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchChromium(): Promise<Browser> {
  // the README names this message: without Chromium the page tests fail with it, and nothing else does
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A page test file's browser: Chromium is there and web/dist is current (else it says what to run), then launched. */
export function launchForPages(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  if (!isWebBuildFresh()) throw new Error("web/dist is missing or older than web/: run npm run build:web");
  return launchChromium();
}

/**
 * The pages a test opens, each in a fresh context (its own cookie jar) with a default timeout, watched for script
 * errors and console errors (a CSP violation is one). Chromium logs the answers a test provokes (400, 401, 422,
 * 429) as failed resources: those are expected and not counted. `done()` in afterEach closes the test's
 * contexts and hands back what was seen, for the test to fail on.
 */
export class PageWatch {
  private contexts: BrowserContext[] = [];
  private problems: string[] = [];

  constructor(private readonly defaults: () => { browser: Browser; options: BrowserContextOptions; timeout: number }) {}

  async open(options: BrowserContextOptions = {}): Promise<Page> {
    const { browser, options: base, timeout } = this.defaults();
    const context = await browser.newContext({ ...base, ...options });
    context.setDefaultTimeout(timeout);
    this.contexts.push(context);
    const page = await context.newPage();
    page.on("pageerror", (err) => this.problems.push(`page error: ${err.message}`));
    page.on("console", (msg) => {
      if (msg.type() === "error" && !msg.text().startsWith("Failed to load resource")) this.problems.push(msg.text());
    });
    return page;
  }

  async done(): Promise<string[]> {
    await Promise.all(this.contexts.map((c) => c.close()));
    this.contexts = [];
    const seen = this.problems;
    this.problems = [];
    return seen;
  }
}

export interface AxeFinding {
  id: string;
  impact: string | null | undefined;
  help: string;
  targets: string[];
}

/** The serious and critical axe violations of the page as it is now (WCAG 2.x A and AA rules). */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(" ")) }));
}
