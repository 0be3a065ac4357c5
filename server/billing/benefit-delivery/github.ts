// github_repository delivery through GitHub's REST API with @octokit/rest: the retry plugin retries 5xx and
// network failures once, the throttling plugin honours GitHub's rate-limit headers (x-ratelimit-*, retry-after)
// and retries a short wait once; anything longer is left to the delivery's own backoff (errors.ts). Writes of one
// seller are spaced as GitHub asks (Octokit's: 1 s, 3 s for those that notify, such as adding a collaborator),
// unless the operator sets another interval (TILL_GITHUB_WRITE_INTERVAL_MS: a GitHub Enterprise Server, a stand-in).
// Authentication is the seller's: a GitHub App installation (installation tokens from the app's private key,
// minted and renewed by @octokit/auth-app) or a token the seller gave.
import { createAppAuth } from "@octokit/auth-app";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import Bottleneck from "bottleneck";
import { DeliveryError, fromStatus, permanent } from "./errors.js";
import type { GithubIntegration } from "./integrations.js";
import { withoutGrantedAccount } from "./properties.js";

const Client = Octokit.plugin(retry, throttling);
type GithubClient = InstanceType<typeof Client>;

/** Waits GitHub asks for that the client sits out itself; a longer one becomes a delivery retry. */
const MAX_INLINE_WAIT_S = 10;

/** Per write interval, the limiters of writes and of writes that notify (keyed by seller), shared by every client. */
const writeLimiters = new Map<number, { write: Bottleneck.Group; notifications: Bottleneck.Group }>();

function writeLimitersOf(intervalMs: number) {
  let limiters = writeLimiters.get(intervalMs);
  if (!limiters) {
    const group = (id: string) => new Bottleneck.Group({ id, maxConcurrent: 1, minTime: intervalMs, timeout: 120_000 });
    limiters = { write: group("till-github-write"), notifications: group("till-github-notifications") };
    writeLimiters.set(intervalMs, limiters);
  }
  return limiters;
}

export function githubClient(integration: GithubIntegration, baseUrl: string, throttleId: string, writeIntervalMs?: number): GithubClient {
  const onLimit = (retryAfter: number, _options: unknown, _octokit: unknown, retryCount: number) => retryCount < 1 && retryAfter <= MAX_INLINE_WAIT_S;
  const common = {
    baseUrl,
    userAgent: "till-benefits",
    log: { debug() {}, info() {}, warn() {}, error() {} },
    retry: { retries: 1 },
    throttle: {
      id: throttleId,
      onRateLimit: onLimit,
      onSecondaryRateLimit: onLimit,
      ...(writeIntervalMs === undefined ? {} : writeLimitersOf(writeIntervalMs)),
    },
    request: { timeout: 15_000 },
  };
  if (integration.token) return new Client({ ...common, auth: integration.token });
  return new Client({
    ...common,
    authStrategy: createAppAuth,
    auth: { appId: integration.app_id, privateKey: integration.private_key, installationId: integration.installation_id },
  });
}

export interface GithubAccount {
  accountId: string;
  username: string;
}

export interface GithubBenefitProperties {
  repository_owner: string;
  repository_name: string;
  permission: string;
}

function statusOf(err: unknown): number | undefined {
  const s = (err as { status?: unknown } | null)?.status;
  return typeof s === "number" ? s : undefined;
}

function failure(err: unknown, what: string): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const status = statusOf(err);
  const headers = (err as { response?: { headers?: Record<string, string | undefined> } }).response?.headers ?? {};
  const rateLimited = status === 403 && (headers["x-ratelimit-remaining"] === "0" || headers["retry-after"] !== undefined);
  const message = err instanceof Error ? err.message : String(err);
  const e = fromStatus(status, `${what}: ${message}`, rateLimited);
  if (e.type === "not_found") return permanent("not_found", `${what}: the repository does not exist or the seller's credentials cannot see it`);
  return e;
}

const ignoreNotFound = (err: unknown) => {
  if (statusOf(err) !== 404) throw err;
};

/**
 * Invites the account as a collaborator with the benefit's permission (a collaborator already there gets the
 * permission updated); a grant that gave another repository or account before loses that access first.
 * Returns the grant's properties.
 */
export async function grantGithub(
  client: GithubClient,
  benefit: GithubBenefitProperties,
  account: GithubAccount,
  current: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const repository = `${benefit.repository_owner}/${benefit.repository_name}`;
  if (typeof current.granted_repository === "string" && (current.granted_repository !== repository || current.account_username !== account.username)) {
    await revokeGithub(client, current);
  }
  let invitationId: number | null = null;
  try {
    const res = await client.rest.repos.addCollaborator({
      owner: benefit.repository_owner,
      repo: benefit.repository_name,
      username: account.username,
      permission: benefit.permission,
    });
    // 201: an invitation was made (or renewed); 204: already a collaborator, permission set
    if (res.status === 201 && res.data && typeof res.data.id === "number") invitationId = res.data.id;
  } catch (err) {
    throw failure(err, `Inviting ${account.username} to ${repository}`);
  }
  return {
    repository_owner: benefit.repository_owner,
    repository_name: benefit.repository_name,
    permission: benefit.permission,
    account_id: account.accountId,
    granted_account_id: account.accountId,
    account_username: account.username,
    granted_repository: repository,
    invitation_id: invitationId,
  };
}

/** Cancels the pending invitation and removes the collaborator the grant made; what is gone already is fine. */
export async function revokeGithub(client: GithubClient, current: Record<string, unknown>): Promise<Record<string, unknown>> {
  const repository = current.granted_repository;
  const username = current.account_username;
  if (typeof repository !== "string" || typeof username !== "string") return current;
  const [owner = "", repo = ""] = repository.split("/");
  try {
    if (typeof current.invitation_id === "number") {
      await client.rest.repos.deleteInvitation({ owner, repo, invitation_id: current.invitation_id }).catch(ignoreNotFound);
    }
    await client.rest.repos.removeCollaborator({ owner, repo, username }).catch(ignoreNotFound);
  } catch (err) {
    throw failure(err, `Removing ${username} from ${repository}`);
  }
  return { ...withoutGrantedAccount(current), granted_repository: null, invitation_id: null };
}
