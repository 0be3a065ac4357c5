// The real server process (server/main.ts) on SIGTERM: /readyz answers 503 "draining" first while the other routes
// are still served for TILL_DRAIN_DELAY, then the process closes and exits 0. Its metrics port (TILL_METRICS_PORT)
// opens on loopback with it.
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually } from "../helpers/receiver.js";
import { freePort, START_TIMEOUT_MS, startOwnTill, type OwnTill, type Till } from "../helpers/till-process.js";

let own: OwnTill;
let till: Till;
let baseUrl: string;
let metricsUrl: string;

beforeAll(async () => {
  const metricsPort = await freePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  own = await startOwnTill("drain", { TILL_METRICS_PORT: String(metricsPort), TILL_DRAIN_DELAY: "3s" });
  ({ till, baseUrl } = own);
}, START_TIMEOUT_MS + 60_000);

afterAll(async () => {
  await own?.stop("SIGKILL");
});

it("is ready, then on SIGTERM answers not-ready while still serving, then exits", async () => {
  await eventually(async () => (await fetch(`${baseUrl}/readyz`)).status === 200, 30_000);
  const metrics = await fetch(metricsUrl);
  expect(metrics.status).toBe(200);
  expect(await metrics.text()).toContain("till_http_requests_total");
  expect((await fetch(`${baseUrl}/metrics`)).status).toBe(404);

  const exitCode = new Promise<number | null>((resolve) => till.child.once("exit", (code) => resolve(code)));
  till.child.kill("SIGTERM");
  const draining = await eventually(async () => {
    const res = await fetch(`${baseUrl}/readyz`);
    return res.status === 503 ? ((await res.json()) as { failed: string[] }) : null;
  });
  expect(draining.failed).toContain("draining");
  expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
  expect(await exitCode).toBe(0);
}, 60_000);
