// Headless Chromium for the page tests (the Debian package at /usr/bin/chromium) and the accessibility check
// every page test may run: axe-core's WCAG A/AA rules, failing on serious and critical violations.
//
// One Chromium per test worker: a worker runs its files one after the other and keeps its modules between them
// (vitest.config.ts, isolate: false), so the browser launched for the first page file serves the next ones
// (about 1.6 s of a file's time on a slow machine). A file gets its pages in contexts of its own and closes them
// in afterAll with `closePages`; the browser goes with the worker's process.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AxeResults, RunOptions } from "axe-core";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Frame, type Page } from "playwright-core";
import { isWebBuildFresh } from "../../web/build.js";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // Chromium 156's headless mode (Debian's) preloads the address bar's WebUI popup, whose renderer animated for as
  // long as the browser ran: about half a CPU while a test's page sat idle, over two fifths of all Chromium CPU in a
  // run of tests/e2e (575 → 325 s; the run 445 → 299 s wall with three workers). The tests never show an address bar.
  "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup",
];

let shared: Promise<Browser> | undefined;

/** The worker's Chromium: launched on first use, and again if it went away (a crash, or a test closed it). */
export async function launchChromium(): Promise<Browser> {
  // the README names this message: without Chromium the page tests fail with it, and nothing else does
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const current = shared && (await shared.catch(() => undefined));
  if (current?.isConnected()) return current;
  shared = chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  return shared;
}

/** A page file's afterAll: closes every context of the shared browser (the file's own: files run one at a time). */
export async function closePages(browser: Browser | undefined): Promise<void> {
  if (!browser?.isConnected()) return;
  await Promise.all(browser.contexts().map((c) => c.close()));
}

/** A page test file's browser (every page file's door): web/dist is current (else it says what to run), then the
 *  worker's Chromium. */
export function launchForPages(): Promise<Browser> {
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

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const AXE_OPTIONS: RunOptions = {
  runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
  // the passes' and incomplete results' details are not read; leaving them out made a run about twice as fast
  resultTypes: ["violations"],
};

/**
 * The serious and critical axe violations of the page as it is now (WCAG 2.x A and AA rules). axe-core is put
 * into each frame once per document (its 580 kB take 0.3–0.9 s to evaluate on a slow machine; @axe-core/playwright
 * evaluated them twice per check and once more in a blank page it opened to merge the frames' results) and runs
 * from the top frame, which reaches the page's frames itself.
 */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  const inject = async (frame: Frame) => {
    if (!(await frame.evaluate(() => "axe" in window))) await frame.evaluate(AXE_SOURCE);
  };
  await inject(page.mainFrame());
  // a child frame may go away meanwhile (as @axe-core/playwright, a frame axe cannot enter is left out)
  for (const frame of page.frames().filter((f) => f !== page.mainFrame())) await inject(frame).catch(() => undefined);
  const result = await page.evaluate(
    (options) => (window as unknown as { axe: { run(context: Document, options: RunOptions): Promise<AxeResults> } }).axe.run(document, options),
    AXE_OPTIONS,
  );
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(" ")) }));
}
