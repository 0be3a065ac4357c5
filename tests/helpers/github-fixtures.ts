// GitHub's recorded responses for benefit delivery: @octokit/fixtures-server serving a scenario of
// @octokit/fixtures (real api.github.com requests and responses, recorded by Octokit's maintainers and
// normalized) on 127.0.0.1, in a child process (the server mocks its proxy target with nock, which stays out of
// the test's own process).
//
// Which GitHub behaviour is tested against what:
// - Recorded responses (this file; tests/api/benefit-delivery-fixtures.test.ts), scenario
//   `add-and-remove-repository-collaborator`: a grant invites the connected account as a collaborator (PUT
//   …/collaborators/{user}, answered 201 with the invitation), the invitee accepts, a revoke removes the
//   collaborator (DELETE …/collaborators/{user}, 204). The fixtures server answers requests in the recorded order
//   only, and checks each request's method, path, headers and body against the recording.
// - The hand-written peer (tests/helpers/delivery-peers.ts, GithubPeer) for everything no scenario records:
//   OAuth (authorize, access_token with PKCE, GET /user), cancelling a pending invitation, benefit updates that
//   move a grant to another repository or permission, a repository that does not exist (404), rate limits and 5xx,
//   and a GitHub App's installation tokens. Recordings cannot be steered into those (no scenario has them, and a
//   recording answers one fixed sequence), so the peer implements the few endpoints as GitHub documents them.
//
// How till's requests differ from the recording, and what the derived scenario (collaboratorScenario) changes:
// - The recording's PUT sends no body: GitHub's documented default permission, push. Till always sends the
//   benefit's permission ({"permission":"push"} for a push benefit — the same request by GitHub's docs), so the
//   recorded request's body and content-length are those of till's request; the response stays the recording's.
// - Till's revoke also cancels the invitation it made (DELETE …/invitations/{id}), since it cannot know whether
//   the invitee accepted. The recording has no such request (the recorder knew), so one entry is added for it: an
//   accepted invitation's id no longer names an open invitation, answered 404 Not Found as GitHub answers for an
//   id it does not know (GitHub's docs list 204 for an open one; till takes 204 and 404 alike — 204 is tested
//   against the peer). It is the only response in the derived scenario that was not recorded.
// - The recording's other requests (list invitations, the invitee accepting, listing collaborators) are made by
//   the test itself, in the recorded order, playing the seller and the customer.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** One request and its response as @octokit/fixtures records them (nock's definition format). */
export interface RecordedFixture {
  scope: string;
  method: string;
  path: string;
  body: unknown;
  status: number;
  response: unknown;
  reqheaders: Record<string, string | number>;
  responseIsBinary: boolean;
  headers: Record<string, string | number>;
}

const require = createRequire(import.meta.url);
const SCENARIOS = join(dirname(require.resolve("@octokit/fixtures/package.json")), "scenarios", "api.github.com");

/** The recorded scenario, as it is in @octokit/fixtures. */
export function recordedScenario(name: string): RecordedFixture[] {
  return JSON.parse(readFileSync(join(SCENARIOS, name, "normalized-fixture.json"), "utf8")) as RecordedFixture[];
}

/** The recording's names: the seller's (user A) and the customer's (user B) tokens, the repository, the invitee. */
export const COLLABORATOR_SCENARIO = {
  name: "add-and-remove-repository-collaborator",
  sellerToken: "0000000000000000000000000000000000000001",
  inviteeToken: "0000000000000000000000000000000000000002",
  owner: "octokit-fixture-org",
  repo: "add-and-remove-repository-collaborator",
  invitee: { id: 1002, login: "octokit-fixture-user-b" },
  invitationId: 1000,
} as const;

/**
 * `add-and-remove-repository-collaborator` as till's delivery makes its requests (see the head of this file):
 * the PUT carries `{"permission": permission}`, and the revoke's invitation cancel is answered 404 before the
 * recorded collaborator removal.
 */
export function collaboratorScenario(permission: "push"): RecordedFixture[] {
  const recorded = recordedScenario(COLLABORATOR_SCENARIO.name);
  const [put, listInvitations, accept, listCollaborators, remove, listAfter] = recorded;
  if (!put || !listInvitations || !accept || !listCollaborators || !remove || !listAfter || recorded.length !== 6) {
    throw new Error(`${COLLABORATOR_SCENARIO.name}: the recording changed; expected 6 requests, found ${recorded.length}`);
  }
  const body = { permission };
  const putAsTill: RecordedFixture = {
    ...put,
    body,
    reqheaders: { ...put.reqheaders, "content-length": Buffer.byteLength(JSON.stringify(body)) },
  };
  const notFound = { message: "Not Found", documentation_url: "https://docs.github.com/rest/collaborators/invitations#delete-a-repository-invitation", status: "404" };
  const cancelAccepted: RecordedFixture = {
    scope: remove.scope,
    method: "delete",
    path: `/repos/${COLLABORATOR_SCENARIO.owner}/${COLLABORATOR_SCENARIO.repo}/invitations/${COLLABORATOR_SCENARIO.invitationId}`,
    body: "",
    status: 404,
    response: notFound,
    reqheaders: { accept: "application/vnd.github.v3+json", authorization: `token ${COLLABORATOR_SCENARIO.sellerToken}`, host: "api.github.com" },
    responseIsBinary: false,
    headers: {
      "content-type": "application/json; charset=utf-8", "x-github-media-type": "github.v3; format=json",
      "x-ratelimit-limit": "5000", "x-ratelimit-remaining": "4998", "x-ratelimit-reset": "1507651200",
      "x-ratelimit-resource": "core",
    },
  };
  return [putAsTill, listInvitations, accept, listCollaborators, cancelAccepted, remove, listAfter];
}

// The child: @octokit/fixtures-server's express middleware on an ephemeral port of 127.0.0.1 (its CLI listens
// on every interface), loaded with the fixtures of FIXTURES_FILE, printing its url once listening.
const CHILD = `
import http from "node:http";
import { readFileSync } from "node:fs";
import express from "express";
import fixturesServer from "@octokit/fixtures-server";
const fixtures = JSON.parse(readFileSync(process.env.FIXTURES_FILE, "utf8"));
const server = http.createServer();
server.listen(0, "127.0.0.1", () => {
  const url = "http://127.0.0.1:" + server.address().port;
  const app = express();
  app.use(fixturesServer({ fixturesUrl: url, logLevel: "silent", ttl: 10 * 60_000, fixtures }));
  server.on("request", app);
  process.stdout.write(JSON.stringify({ url }) + "\\n");
});
`;

export class GithubFixturesServer {
  url = "";
  private child: ChildProcess | null = null;
  private dir = "";

  /** Starts the server with these scenarios (name → fixtures). */
  async start(scenarios: Record<string, RecordedFixture[]>): Promise<string> {
    this.dir = mkdtempSync(join(tmpdir(), "till-gh-fixtures-"));
    const file = join(this.dir, "fixtures.json");
    writeFileSync(file, JSON.stringify(scenarios));
    const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD], {
      cwd: join(SCENARIOS, "..", "..", "..", "..", ".."),
      env: { PATH: process.env.PATH ?? "", FIXTURES_FILE: file },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    this.url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
        const line = out.split("\n")[0];
        if (out.includes("\n") && line) resolve((JSON.parse(line) as { url: string }).url);
      });
      child.on("exit", (code) => reject(new Error(`the fixtures server exited (${code}): ${stderr}`)));
    });
    return this.url;
  }

  /** Loads a scenario: the base URL that answers as api.github.com would, with the scenario's responses in order. */
  async load(scenario: string): Promise<string> {
    const res = await fetch(`${this.url}/fixtures`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ scenario }) });
    if (res.status !== 201) throw new Error(`loading ${scenario}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { url: string }).url;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null) {
      await new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      });
    }
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}
