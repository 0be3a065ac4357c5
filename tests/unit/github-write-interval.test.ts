// The spacing of a seller's GitHub writes: Octokit's by default (3 s between writes that notify, such as
// inviting a collaborator, as GitHub asks), or TILL_GITHUB_WRITE_INTERVAL_MS. Against a loopback server that
// records when each invitation arrives.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubClient } from "../../server/billing/benefit-delivery/github.js";
import { ConfigError, loadConfig } from "../../server/config.js";

let server: http.Server;
let url = "";
const arrivals: number[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      arrivals.push(performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const integration = { token: "ghp_test", client_id: "c", client_secret: "s" };

/**
 * Sends two invitations for one seller, one right after the other; answers the time from the first one's sending to
 * the second one's arrival (ms): the second is sent no sooner than the interval after the first was, whatever the
 * first one's own way there took on a busy machine (the gap between the two arrivals shrinks by that).
 */
async function gapOfTwoInvitations(seller: string, intervalMs?: number): Promise<number> {
  const client = githubClient(integration, url, seller, intervalMs);
  arrivals.length = 0;
  const sent = performance.now();
  for (const username of ["ann", "bob"]) await client.rest.repos.addCollaborator({ owner: "acme", repo: "private", username, permission: "pull" });
  expect(arrivals).toHaveLength(2);
  return (arrivals[1] ?? 0) - sent;
}

describe("GitHub write spacing", () => {
  it("is read from TILL_GITHUB_WRITE_INTERVAL_MS (0 to 60,000 ms), else left to Octokit", () => {
    expect(loadConfig({}).benefits.githubWriteIntervalMs).toBeUndefined();
    expect(loadConfig({ TILL_GITHUB_WRITE_INTERVAL_MS: "250" }).benefits.githubWriteIntervalMs).toBe(250);
    for (const bad of ["", "-1", "1.5", "soon", "60001", "1e3"]) expect(() => loadConfig({ TILL_GITHUB_WRITE_INTERVAL_MS: bad })).toThrow(ConfigError);
  });

  it("spaces a seller's invitations by the configured interval", async () => {
    const gap = await gapOfTwoInvitations("seller-a", 400);
    expect(gap).toBeGreaterThanOrEqual(400);
    expect(gap).toBeLessThan(2500); // not Octokit's 3 s
  });

  it("spaces them as GitHub asks when no interval is configured (3 s between writes that notify)", async () => {
    expect(await gapOfTwoInvitations("seller-b")).toBeGreaterThanOrEqual(2500);
  });
});
