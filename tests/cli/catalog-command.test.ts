// `till catalog` as a command: pull then plan in a folder (the default file), and the command's output, exit
// codes and errors.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseCatalog } from "../../cli/catalog/file.js";
import { parseJson, spawnTillInTerminal, tempConfigDir, terminal, till, type TillOptions } from "./till.js";
import { catalogFixture, type Org } from "./catalog-fixtures.js";

const fx = catalogFixture();

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("till catalog pull, then plan, in a folder (the default file)", () => {
  it("pull on a terminal writes till.yaml, plan reads it: no changes; a dropped product is named, --prune archives it", { timeout: 120_000 }, async () => {
    const org = await fx.newOrg("default-file");
    const { sdk } = org.seller;
    await sdk.products.create({ name: "Kept", prices: [{ amountType: "fixed", priceAmount: 1500 }] });
    await sdk.products.create({ name: "Dropped", prices: [{ amountType: "fixed", priceAmount: 900 }] });
    const cwd = mkdtempSync(path.join(os.tmpdir(), "till-catalog-cwd-"));
    const opts: TillOptions = { configDir: tempConfigDir(), cwd, env: { TILL_API_KEY: await org.seller.createKey(), TILL_SERVER: fx.server.url } };

    const pulled = await till(["catalog", "pull"], { ...opts, env: { ...opts.env, TILL_FORCE_TTY: "1", NO_COLOR: "1" } });
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    expect(pulled.stdout).toBe("Wrote till.yaml: 0 meters, 0 custom fields, 0 benefits, 2 products, 0 discounts.\n");
    const text = readFileSync(path.join(cwd, "till.yaml"), "utf8");
    expect(text).toContain("  dropped:\n    name: Dropped\n");

    expect(await till(["catalog", "plan"], opts)).toEqual({ exitCode: 0, stderr: "", stdout: "No changes: the catalog on the server matches the file.\n" });

    writeFileSync(path.join(cwd, "till.yaml"), text.replace(/ {2}dropped:\n(?: {4}.*\n)+/, ""));
    expect(await till(["catalog", "plan"], opts)).toEqual({
      exitCode: 0,
      stderr: "",
      stdout: `# 1 product not in the file, kept: "Dropped" (--prune archives it)\n\nNo changes: the catalog on the server matches the file.\n`,
    });
    expect(await till(["catalog", "plan", "--prune"], opts)).toEqual({
      exitCode: 2,
      stderr: "",
      stdout: `- archive product "Dropped"\n\nPlan: 0 to create, 0 to update, 0 to replace, 1 to archive, 0 to delete.\n`,
    });

    const elsewhere = await till(["catalog", "plan"], { ...opts, cwd: os.tmpdir() });
    expect(elsewhere.exitCode).toBe(2);
    expect(elsewhere.stderr).toBe("error: -f: there is no till.yaml here\nhint: write it with `till catalog pull`, or name another file with -f\n");
  });
});

describe("till catalog (the command)", () => {
  const SMALL = `version: 1
benefits:
  support:
    type: custom
    description: Priority support
products:
  pro:
    name: Pro
    recurring_interval: month
    prices: [{ amount_type: fixed, price_amount: 1000 }]
    benefits: [support]
discounts:
  launch:
    name: Launch
    code: LAUNCH
    type: percentage
    basis_points: 2000
    duration: once
    products: [pro]
`;
  let dir: string;
  let opts: TillOptions;
  let org: Org;
  /** The organization apply changes, as its messages name it. */
  let target: string;
  const file = (name: string) => path.join(dir, name);

  beforeAll(async () => {
    org = await fx.newOrg("cli");
    dir = mkdtempSync(path.join(os.tmpdir(), "till-catalog-"));
    writeFileSync(file("till.yaml"), SMALL);
    opts = { configDir: tempConfigDir(), env: { TILL_API_KEY: await org.seller.createKey(), TILL_SERVER: fx.server.url } };
    target = `${(await org.seller.sdk.organizations.get({ id: org.seller.organizationId })).name} (${org.seller.slug}), live`;
  });

  it("plan: the changes on stdout, exit 2; --json; apply without --yes and nobody to ask: exit 2 and a hint", async () => {
    const planned = await till(["catalog", "plan", "-f", file("till.yaml")], opts);
    expect(planned).toEqual({
      exitCode: 2,
      stderr: "",
      stdout: `+ create benefit "Priority support" (custom)
+ create product "Pro" (1 price, 1 benefit)
+ create discount "Launch" (20% once, code LAUNCH)

Plan: 3 to create, 0 to update, 0 to replace, 0 to archive, 0 to delete.
`,
    });
    const json = await till(["catalog", "plan", "-f", file("till.yaml"), "--json"], opts);
    expect(json.exitCode).toBe(2);
    expect(parseJson(json.stdout)).toEqual({
      changes: [
        { action: "create", kind: "benefit", section: "benefits", key: "support", name: "Priority support", id: null, adopt: false, fields: [] },
        { action: "create", kind: "product", section: "products", key: "pro", name: "Pro", id: null, adopt: false, fields: [] },
        { action: "create", kind: "discount", section: "discounts", key: "launch", name: "Launch", id: null, adopt: false, fields: [] },
      ],
      notes: [],
      counts: { create: 3, update: 0, replace: 0, archive: 0, delete: 0 },
    });

    const refused = await till(["catalog", "apply", "-f", file("till.yaml")], opts);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toBe(
      `error: apply needs confirmation: 3 changes planned to ${target} and nobody to ask\n` +
        `hint: review them with \`till catalog plan -f ${file("till.yaml")}\`, then run \`till catalog apply -f ${file("till.yaml")} --yes\`\n`,
    );
    expect((await till(["catalog", "plan", "-f", file("till.yaml")], opts)).exitCode).toBe(2);
  });

  it("apply --yes makes the changes; then plan exits 0 and pull writes the same catalog", { timeout: 120_000 }, async () => {
    const applied = await till(["catalog", "apply", "-f", file("till.yaml"), "--yes", "--json"], opts);
    expect(applied.exitCode, applied.stderr).toBe(0);
    const body = parseJson<{ applied: Array<{ action: string; key: string; id: string }> }>(applied.stdout);
    expect(body.applied.map((a) => `${a.action} ${a.key}`)).toEqual(["create support", "create pro", "create launch"]);
    expect(body.applied.every((a) => /^[0-9a-f-]{36}$/.test(a.id))).toBe(true);

    const plain = await till(["catalog", "apply", "-f", file("till.yaml"), "--yes"], opts);
    expect(plain).toEqual({ exitCode: 0, stderr: "", stdout: "No changes: the catalog on the server matches the file.\n" });
    expect(await till(["catalog", "plan", "-f", file("till.yaml")], opts)).toEqual({
      exitCode: 0,
      stderr: "",
      stdout: "No changes: the catalog on the server matches the file.\n",
    });

    const pulled = await till(["catalog", "pull", "-o", file("pulled.yaml")], opts);
    expect(pulled).toEqual({ exitCode: 0, stderr: "", stdout: `Wrote ${file("pulled.yaml")}: 0 meters, 0 custom fields, 1 benefit, 1 product, 1 discount.\n` });
    expect(parseCatalog(readFileSync(file("pulled.yaml"), "utf8"))).toEqual(parseCatalog(SMALL));
    const stdout = await till(["catalog", "pull"], opts);
    expect(stdout.stdout).toBe(readFileSync(file("pulled.yaml"), "utf8"));
  });

  it("apply on a pipe: the plan and a summary on stdout, progress on stderr", async () => {
    writeFileSync(file("edited.yaml"), SMALL.replace("price_amount: 1000", "price_amount: 1500"));
    const r = await till(["catalog", "apply", "-f", file("edited.yaml"), "--yes"], opts);
    expect(r).toEqual({
      exitCode: 0,
      stdout: `~ update product "Pro": prices - fixed 1000 usd, + fixed 1500 usd

Plan: 0 to create, 1 to update, 0 to replace, 0 to archive, 0 to delete.
Applied 1 change to ${target}.
`,
      stderr: `✓ ~ update product "Pro": prices - fixed 1000 usd, + fixed 1500 usd\n`,
    });
  });

  it("apply names the organization and the mode it changes: a sandbox key changes the sandbox", async () => {
    const sandbox = { ...opts, env: { ...opts.env, TILL_API_KEY: await org.seller.createSandboxKey() } };
    const refused = await till(["catalog", "apply", "-f", file("till.yaml")], sandbox);
    expect(refused.stderr).toContain(`3 changes planned to ${target.replace(/, live$/, "").replace(`(${org.seller.slug})`, `(${org.seller.slug}-sandbox)`)}, sandbox and nobody to ask`);
    const r = await till(["catalog", "apply", "-f", file("till.yaml"), "--yes"], sandbox);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`\\nApplied 3 changes to .* \\(${org.seller.slug}-sandbox\\), sandbox\\.\\n$`));
  });

  it("at a terminal, apply asks first, naming the organization, the mode and the server; a no is exit 2, nothing changed", async () => {
    writeFileSync(file("asked.yaml"), SMALL.replace("price_amount: 1000", "price_amount: 1700"));
    const child = spawnTillInTerminal(["catalog", "apply", "-f", file("asked.yaml")], opts);
    const person = terminal(child);
    await person.waitFor(new RegExp(`Apply \\d+ changes? to ${escapeRegExp(target)} on ${escapeRegExp(fx.server.url)}\\? \\[y/N\\] `));
    person.type("n\r");
    const r = await child;
    expect(r.exitCode, person.text()).toBe(2);
    expect(person.text()).toContain("Cancelled: nothing was changed.");
    expect((await till(["catalog", "plan", "-f", file("asked.yaml")], opts)).exitCode).toBe(2);
  });

  it("an invalid file: exit 2 (invalid input), every problem with its line", async () => {
    writeFileSync(file("bad.yaml"), "version: 1\nproducts:\n  pro:\n    name: Pro\n    prices: []\n");
    const r = await till(["catalog", "plan", "-f", file("bad.yaml")], opts);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      `error: ${file("bad.yaml")} is not a valid catalog:\n${file("bad.yaml")}:5: products.pro.prices: a product has at least one price\n` +
        `hint: \`till catalog pull\` writes a valid file to start from\n`,
    );
  });
});
