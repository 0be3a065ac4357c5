// The page tests' Chromium runs nothing but the tests' pages: Chromium's own preloaded WebUI (the address bar's
// popup, which animated for as long as the browser ran, tests/helpers/browser.ts) stays off. A Chromium update
// that brings another such surface back fails here instead of slowing every page test.
import type { Browser } from "playwright-core";
import { afterAll, expect, it } from "vitest";
import { closePages, launchForPages } from "../helpers/browser.js";

let browser: Browser | undefined;
afterAll(() => closePages(browser));

it("the shared Chromium has no target besides the tests' pages", async () => {
  browser = await launchForPages();
  const context = await browser.newContext();
  await (await context.newPage()).goto("about:blank");
  const cdp = await browser.newBrowserCDPSession();
  const { targetInfos } = await cdp.send("Target.getTargets", { filter: [{}] });
  await cdp.detach();
  const others = targetInfos.filter((t) => t.type !== "page" && t.type !== "tab").map((t) => `${t.type} ${t.url}`);
  expect(others).toEqual([]);
});
