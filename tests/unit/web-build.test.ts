// The web app is built as it ships whoever builds it: the e2e tests' global setup builds under vitest, whose
// NODE_ENV is "test", and vite then made React's development build (StrictMode ran every effect twice: the
// portal loaded itself twice, and an e2e test's session expiry raced the second load).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { buildWebInto } from "../../web/build.js";

const out = mkdtempSync(path.join(tmpdir(), "till-web-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it("makes React's production build under NODE_ENV=test, and leaves NODE_ENV as it was", async () => {
  expect(process.env.NODE_ENV).toBe("test");
  await buildWebInto(out);
  expect(process.env.NODE_ENV).toBe("test");
  const assets = path.join(out, "assets");
  const scripts = readdirSync(assets).filter((f) => f.endsWith(".js"));
  expect(scripts.length).toBeGreaterThan(1);
  const code = scripts.map((f) => readFileSync(path.join(assets, f), "utf8")).join("\n");
  // React's development build: its warnings, and the JSX dev runtime's source locations
  expect(code).not.toContain("Check the render method");
  expect(code).not.toContain("jsxDEV");
  expect(readdirSync(out)).toEqual(expect.arrayContaining(["index.html", "embed.js", "embed.mjs"]));
}, 120_000);
