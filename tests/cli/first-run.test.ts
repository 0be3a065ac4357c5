// What a newcomer reads before anything talks to a server: `till help <command> <sub>` prints the subcommand's
// help (not its group's), `till --help` documents the exit codes, and the first-run commands (`signup`,
// `checkouts pay`) say what they do and where they work.
import { describe, expect, it } from "vitest";
import { tempConfigDir, till } from "./till.js";

const opts = () => ({ configDir: tempConfigDir() });

describe("help", () => {
  it("`till help products create` is `till products create --help`, exit 0", async () => {
    const routed = await till(["help", "products", "create"], opts());
    const direct = await till(["products", "create", "--help"], opts());
    expect(routed.exitCode).toBe(0);
    expect(routed.stdout).toBe(direct.stdout);
    expect(routed.stdout).toMatch(/^Usage: till products create \[options\] <name>\n/);
    expect(routed.stdout).toContain("--price <amount>");
    const group = await till(["help", "products"], opts());
    expect(group.stdout).toMatch(/^Usage: till products \[options\] \[command\]\n/);
  });

  it("till --help lists the exit codes 0, 1, 2 and 4", async () => {
    const r = await till(["--help"], opts());
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("\nExit codes:\n  0  ok\n  1  failure: ");
    expect(r.stdout).toMatch(/\n {2}2 {2}usage or invalid input: .*\n/);
    expect(r.stdout).toMatch(/\n {2}4 {2}authentication: .*\n/);
    expect(r.stdout.replace(/\s+/g, " ")).toContain(" signup [options] create an account on the server (email + password) and sign this profile in ");
  });

  it("signup and checkouts pay explain themselves", async () => {
    const signup = await till(["signup", "--help"], opts());
    expect(signup.stdout).toContain("--password-stdin");
    expect(signup.stdout).toContain("`till login` signs in to an account that exists");
    const pay = await till(["checkouts", "pay", "--help"], opts());
    const text = pay.stdout.replace(/\s+/g, " ");
    expect(text).toContain("pay a sandbox checkout with a test card, as a customer would on its page (sandbox only)");
    expect(text).toContain("--card <number> a test card number: 4242424242424242 pays");
    expect(text).toContain("a live checkout is refused before any request");
  });
});
