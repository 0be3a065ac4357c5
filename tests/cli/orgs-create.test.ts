// `till orgs create` and the legal details invoices print: as flags, asked at a terminal before anything is
// created (typed-ahead lines ignored), cancelled with Ctrl-C or Ctrl-D (exit 130, nothing created), or skipped.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { person } from "../auth/key-fixtures.js";
import { login, parseJson, screenText, spawnTillInTerminal, tempConfigDir, terminal, till, type TillOptions } from "./till.js";

let server: TestServer;
/** A signed-in CLI with one organization. */
let cli: TillOptions;

interface Org {
  slug: string;
}

beforeAll(async () => {
  server = await startServer();
  const dana = await person(server, "dana");
  cli = { configDir: tempConfigDir() };
  const r = await login(server.url, dana.client, cli);
  if (r.exitCode !== 0) throw new Error(`login failed: ${r.stderr}`);
  const created = await till(["orgs", "create", "Acme Inc", "--json"], cli);
  if (created.exitCode !== 0) throw new Error(`orgs create failed: ${created.stderr}`);
});
afterAll(async () => server?.close());

describe("till orgs create, legal details", () => {
  it("create: the legal details invoices print, given at once or warned about until `till orgs billing set`", async () => {
    const before = parseJson<{ organization: { id: string } }>((await till(["auth", "status", "--json"], cli)).stdout);
    const bare = await till(["orgs", "create", "Gamma Shop", "--slug", `gamma-${Date.now()}`], cli);
    expect(bare.exitCode, bare.stderr).toBe(0);
    expect(bare.stderr).toContain(
      "warning: Gamma Shop: invoices carry no seller address or tax id: set your legal details with `till orgs billing set --name <legal name>",
    );
    const full = await till(
      [
        "orgs", "create", "Delta GmbH", "--slug", `delta-${Date.now()}`, "--legal-name", "Delta Software GmbH", "--line1", "Hauptstraße 1",
        "--postal-code", "10115", "--city", "Berlin", "--country", "de", "--tax-id", "DE123456789", "--json",
      ],
      cli,
    );
    expect(full.exitCode, full.stderr).toBe(0);
    expect(full.stderr).not.toContain("warning");
    const delta = parseJson<{ id: string; invoice_details: unknown }>(full.stdout);
    const expected = {
      name: "Delta Software GmbH",
      address: { line1: "Hauptstraße 1", line2: null, postal_code: "10115", city: "Berlin", state: null, country: "DE" },
      tax_id: "DE123456789",
      email: null,
    };
    expect(delta.invoice_details).toEqual(expected);
    const shown = await till(["orgs", "billing", "show", "--org", delta.id, "--json"], cli);
    expect(parseJson(shown.stdout)).toEqual(expected);
    // an address without its country is refused before anything is created
    const noCountry = await till(["orgs", "create", "Epsilon", "--line1", "1 Main St"], cli);
    expect([noCountry.exitCode, noCountry.stderr]).toEqual([2, "error: --country: an address needs its country\nhint: add --country <CC> (DE, FR, US)\n"]);
    await till(["orgs", "switch", before.organization.id], cli);
  });

  it("create on a terminal asks first, each skippable; what is typed is on the organization, a pasted line is not", async () => {
    const before = parseJson<{ organization: { id: string } }>((await till(["auth", "status", "--json"], cli)).stdout);
    const slug = `zeta-${Date.now()}`;
    const child = spawnTillInTerminal(["orgs", "create", "Zeta", "--slug", slug, "--no-color"], cli);
    const term = terminal(child);
    // the next line of a pasted block, there before the questions are: never an answer
    term.type("npx till sandbox on\r");
    await term.waitFor(/Your legal details, printed on every invoice \(Enter skips; Ctrl-C cancels; `till orgs billing set` later\):/);
    await term.waitFor(/Legal name \[Zeta\]: /);
    term.type(["", "Zeta Straße 5", "10115", "Berlin", "de", ""].join("\r") + "\r");
    const r = await child;
    const out = screenText(String(r.stdout));
    expect(r.exitCode, out).toBe(0);
    expect(out).toContain("warning: ignored a line typed before the questions (pasted commands do not answer them)");
    // the tax id was skipped: the warning says so
    expect(out).toContain("invoices carry no seller tax id");
    const shown = parseJson<{ name: string | null; address: unknown; tax_id: string | null }>((await till(["orgs", "billing", "show", "--org", slug, "--json"], cli)).stdout);
    expect(shown).toEqual({
      name: null,
      address: { line1: "Zeta Straße 5", line2: null, postal_code: "10115", city: "Berlin", state: null, country: "DE" },
      tax_id: null,
      email: null,
    });
    await till(["orgs", "switch", before.organization.id], cli);
  });

  it("create: Ctrl-C or Ctrl-D at a question cancels at once, exit 130, and no organization is created", async () => {
    for (const key of ["\u0003", "\u0004"]) {
      const slug = `eta-${key.charCodeAt(0)}-${Date.now()}`;
      const child = spawnTillInTerminal(["orgs", "create", "Eta", "--slug", slug, "--no-color"], cli);
      const term = terminal(child);
      await term.waitFor(/Legal name \[Eta\]: /);
      term.type("Eta Legal\r");
      await term.waitFor(/Street address: /);
      term.type(key);
      const r = await child;
      expect(r.exitCode, term.text()).toBe(130);
      expect(term.text()).toContain("Cancelled: no organization was created.");
      const orgs = parseJson<Org[]>((await till(["orgs", "list", "--json"], cli)).stdout);
      expect(orgs.map((o) => o.slug)).not.toContain(slug);
    }
  });

  it("create: --skip-details asks nothing at a terminal; with detail flags it is refused", async () => {
    const before = parseJson<{ organization: { id: string } }>((await till(["auth", "status", "--json"], cli)).stdout);
    const r = await spawnTillInTerminal(["orgs", "create", "Theta", "--slug", `theta-${Date.now()}`, "--skip-details", "--no-color"], cli);
    const out = screenText(String(r.stdout));
    expect(r.exitCode, out).toBe(0);
    expect(out).not.toContain("Legal name");
    expect(out).toContain("Created organization Theta");
    const both = await till(["orgs", "create", "Iota", "--skip-details", "--country", "DE"], cli);
    expect([both.exitCode, both.stderr]).toEqual([2, "error: --skip-details: not with the legal details' flags\nhint: give the details as flags, or --skip-details to set them later\n"]);
    await till(["orgs", "switch", before.organization.id], cli);
  });
});
