// `till signup` (an account from the terminal, signed in at once; the password on stdin or in TILL_PASSWORD
// when nobody can type it) and `till checkouts pay` (a sandbox checkout paid with a test card through the test
// processor's tokenize + confirm, as the hosted page does; live refused before any request), end to end.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, spawnTillInTerminal, tempConfigDir, terminal, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: TillOptions;

const ok = (r: TillResult) => {
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
};
let n = 0;
const email = (tag: string) => `${tag}-${Date.now().toString(36)}-${n++}@example.com`;
const as = (opts: TillOptions, args: string[], extra: Partial<TillOptions> = {}) => till(args, { ...opts, ...extra, env: { ...opts.env, ...extra.env } });

beforeAll(async () => {
  server = await startServer();
  seller = { configDir: tempConfigDir(), env: { TILL_SERVER: server.url } };
  ok(await as(seller, ["signup", "--email", email("seller"), "--password-stdin"], { input: "a long enough password\n" }));
  ok(await as(seller, ["orgs", "create", "Pay Shop", "--slug", `pay-shop-${Date.now().toString(36)}`]));
}, 150_000);
afterAll(async () => server?.close());

describe("till signup", () => {
  it("creates the account and signs the profile in: auth status names it, the password works on the web", async () => {
    const address = email("ada");
    const cli: TillOptions = { configDir: tempConfigDir(), env: { TILL_SERVER: server.url, TILL_PASSWORD: "correct horse battery" } };
    const r = ok(await as(cli, ["signup", "--email", address, "--name", "Ada Lovelace"]));
    expect(r.stdout).toBe(`Created the account ${address} and signed in to ${server.url}.\n`);
    expect(r.stderr).toContain(`A link to verify ${address} was mailed to it`);
    expect(r.stderr).toContain("Next: create your organization with `till orgs create <name>`.");

    const status = ok(await as(cli, ["auth", "status"]));
    expect(status.stdout).toContain(`Signed in as: ${address} (Ada Lovelace)\nCredential: session from stored session (profile default)\n`);

    // the same email and password sign in on the web
    const web = await new Client(server.url).post("/api/auth/sign-in/email", { email: address, password: "correct horse battery" });
    expect(web.status).toBe(200);
  });

  it("--json prints the account; --password-stdin reads the password from stdin", async () => {
    const address = email("json");
    const r = ok(await as({ configDir: tempConfigDir(), env: { TILL_SERVER: server.url } }, ["signup", "--email", address, "--password-stdin", "--json"], { input: "another long password\n" }));
    expect(parseJson(r.stdout)).toMatchObject({ server: server.url, profile: "default", signed_in: true, user: { email: address, name: address.split("@")[0] } });
  });

  it("without a terminal, a missing email or password is exit 2 and says how to give it; nothing is created", async () => {
    const cli: TillOptions = { configDir: tempConfigDir(), env: { TILL_SERVER: server.url } };
    const noEmail = await as(cli, ["signup"]);
    expect(noEmail.exitCode).toBe(2);
    expect(noEmail.stderr).toBe("error: --email: the new account's email is required\nhint: till signup --email you@example.com\n");
    const noPassword = await as(cli, ["signup", "--email", email("nopw")]);
    expect(noPassword.exitCode).toBe(2);
    expect(noPassword.stderr).toBe(
      "error: a password is needed and nobody can type it here\nhint: pass it on stdin with --password-stdin, or set TILL_PASSWORD\n",
    );
    const short = await as(cli, ["signup", "--email", email("short"), "--password-stdin"], { input: "short\n" });
    expect(short.exitCode, short.stderr).toBe(2);
    expect(short.stderr).toMatch(/^error: password: Password (is )?too short/i);
    const status = await as(cli, ["auth", "status"]);
    expect(status.exitCode).toBe(4);
  });

  it("at a terminal, a password shorter than the rule is asked again at once, before the confirmation", async () => {
    const address = email("typed");
    const configDir = tempConfigDir();
    const child = spawnTillInTerminal(["signup", "--email", address], { configDir, env: { TILL_SERVER: server.url } });
    const person = terminal(child);
    await person.waitFor(/Password \(at least 8 characters\): /);
    person.type("short\r");
    await person.waitFor(/Too short: that password has 5 characters, it needs at least 8\. Type another \(an empty one cancels\)\./);
    await person.waitFor(/Password \(at least 8 characters\): /);
    person.type("a typed long password\r");
    await person.waitFor(/Password again: /);
    person.type("a typed long password\r");
    const r = await child;
    const screen = person.text();
    expect(r.exitCode, screen).toBe(0);
    expect(screen).toContain(`Created the account ${address} and signed in to ${server.url}.`);
    expect(screen.match(/Password again: /g)).toHaveLength(1);
    // typed without echo
    expect(screen).not.toContain("short\n");
    expect(screen).not.toContain("a typed long password");
    const web = await new Client(server.url).post("/api/auth/sign-in/email", { email: address, password: "a typed long password" });
    expect(web.status).toBe(200);
  });

  it("under --profile and --server, its next step names --profile (the profile now stores the server)", async () => {
    const cli: TillOptions = { configDir: tempConfigDir(), env: { TILL_PASSWORD: "the ops password" } };
    const r = ok(await as(cli, ["signup", "--profile", "ops", "--server", server.url, "--email", email("ops")]));
    expect(r.stderr).toContain("Next: create your organization with `till --profile ops orgs create <name>`.\n");
  });

  it("an email that has an account is exit 1 and points at till login", async () => {
    const address = email("twice");
    const cli: TillOptions = { configDir: tempConfigDir(), env: { TILL_SERVER: server.url, TILL_PASSWORD: "the first password" } };
    ok(await as(cli, ["signup", "--email", address]));
    const again = await as({ configDir: tempConfigDir(), env: cli.env }, ["signup", "--email", address]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toBe(
      `error: an account with the email ${address} exists on ${server.url}\nhint: sign in to it with \`till login\` (forgot the password? reset it at the sign-in page)\n`,
    );
  });
});

describe("till checkouts pay", () => {
  async function sandboxCheckout(price: string): Promise<{ id: string; url: string }> {
    const product = parseJson<{ id: string }>(ok(await as(seller, ["products", "create", `Item ${n++}`, "--price", price, "--sandbox", "--json"])).stdout);
    const checkout = parseJson<{ id: string; url: string }>(
      ok(await as(seller, ["checkouts", "create", "--product", product.id, "--sandbox", "--json"])).stdout,
    );
    return checkout;
  }

  it("pays a sandbox checkout by id with the test card: an order, the checkout succeeded", async () => {
    const checkout = await sandboxCheckout("2499");
    const r = ok(await as(seller, ["checkouts", "pay", checkout.id, "--sandbox"]));
    expect(r.stdout).toMatch(new RegExp(`^Paid checkout ${checkout.id} in the sandbox: \\$24\\.99 for Item \\d+ with the test card ending 4242; order ([0-9a-f-]{36})\\.\\n$`));
    const orderId = /order ([0-9a-f-]{36})/.exec(r.stdout)?.[1];
    const order = parseJson<{ id: string; total_amount: number; customer: { email: string }; billing_address: { country: string } | null }>(
      ok(await as(seller, ["orders", "get", orderId ?? "", "--sandbox", "--json"])).stdout,
    );
    expect(order).toMatchObject({ id: orderId, total_amount: 2499, customer: { email: "buyer@example.com" } });
    const after = parseJson<{ status: string }>(ok(await as(seller, ["checkouts", "get", checkout.id, "--sandbox", "--json"])).stdout);
    expect(after.status).toBe("succeeded");

    const again = await as(seller, ["checkouts", "pay", checkout.id, "--sandbox"]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toBe(
      `error: checkout ${checkout.id} is paid already: only an open checkout can be paid\nhint: its order: \`till orders list --checkout ${checkout.id}\`\n`,
    );
  });

  it("a declined test card is exit 1 with the processor's message and leaves the checkout open; a bad number is exit 2 naming --card", async () => {
    const checkout = await sandboxCheckout("1000");
    const declined = await as(seller, ["checkouts", "pay", checkout.url, "--sandbox", "--card", "4000 0000 0000 0002", "--email", "ada@example.com", "--country", "FR"]);
    expect(declined.exitCode).toBe(1);
    expect(declined.stderr).toBe("error: Your card was declined.\n");
    const bad = await as(seller, ["checkouts", "pay", checkout.id, "--sandbox", "--card", "4242424242424241"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toBe("error: --card: Your card number is invalid.\n");
    const still = parseJson<{ status: string }>(ok(await as(seller, ["checkouts", "get", checkout.id, "--sandbox", "--json"])).stdout);
    expect(still.status).toBe("open");
  });

  it("refuses to act live, before any request (exit 2); a live checkout is not found in the sandbox", async () => {
    const product = parseJson<{ id: string }>(ok(await as(seller, ["products", "create", "Live item", "--price", "500", "--json"])).stdout);
    const live = parseJson<{ id: string }>(ok(await as(seller, ["checkouts", "create", "--product", product.id, "--json"])).stdout);
    const r = await as(seller, ["checkouts", "pay", live.id, "--verbose"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      "error: till checkouts pay pays sandbox checkouts only, with a test card, and this run acts live (default)\n" +
        "hint: open and pay the checkout in the sandbox: add --sandbox to both commands, or run `till sandbox on` first\n",
    );
    const inSandbox = await as(seller, ["checkouts", "pay", live.id, "--sandbox"]);
    expect(inSandbox.exitCode).toBe(1);
    expect(inSandbox.stderr).toMatch(/^error: .*not found/i);
    const unchanged = parseJson<{ status: string }>(ok(await as(seller, ["checkouts", "get", live.id, "--json"])).stdout);
    expect(unchanged.status).toBe("open");
  });
});
