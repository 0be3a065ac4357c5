// The seller app's JavaScript and CSS, gzipped, per section: what the shell loads (the entry and the seller app's
// chunk) and what each section's pages add to it when opened (their chunks' static closure, less the shell's).
// Builds the web app with a manifest into a temporary folder; fails when the shell or a section is over budget.
// `npm run bench:seller-bundle`.
import react from "@vitejs/plugin-react";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "vite";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const KB = 1024;
/** The shell: the entry (React, the checkout) and the seller app's chunk (layout, toasts). */
const SHELL_BUDGET = 130 * KB;
/** What one section may add to the shell, unless SECTION_BUDGETS says otherwise. */
const SECTION_BUDGET = 60 * KB;
/** The sections allowed another budget than SECTION_BUDGET (none yet: one figure for all keeps them comparable). */
const SECTION_BUDGETS: Record<string, number> = {};

/**
 * Each section's page modules (web/src/seller/pages/<name>.tsx): every page the app loads lazily (routes.tsx,
 * App.tsx) is in one, which the run checks, so a new section cannot go unmeasured.
 */
const SECTIONS: Record<string, string[]> = {
  home: ["Dashboard"],
  products: ["Products", "ProductDetail", "ProductEdit"],
  orders: ["Orders", "OrderDetail"],
  subscriptions: ["Subscriptions", "SubscriptionDetail"],
  customers: ["Customers", "CustomerDetail"],
  discounts: ["Discounts", "DiscountDetail"],
  "checkout links": ["CheckoutLinks", "CheckoutLinkDetail"],
  "custom fields": ["CustomFields", "CustomFieldForm"],
  meters: ["Meters", "MeterDetail", "MeterForm"],
  webhooks: ["Webhooks", "WebhookDeliveries", "WebhookEdit"],
  "api keys": ["ApiKeys"],
  settings: ["Settings", "StripeImport"],
  admin: ["AdminOrganizations"],
  "settings: team": ["SettingsTeam"],
  "settings: developers": ["SettingsDevelopers"],
};

/** The pages the app loads lazily, by name, read from the modules that load them. */
function lazyPages(): string[] {
  const names = new Set<string>();
  for (const file of ["src/seller/routes.tsx", "src/seller/App.tsx"]) {
    const source = readFileSync(path.join(ROOT, "web", file), "utf8");
    for (const m of source.matchAll(/import\("\.\/pages\/(\w+)\.js"\)/g)) names.add(m[1]!);
  }
  return [...names].sort();
}

interface ManifestChunk {
  file: string;
  imports?: string[];
  css?: string[];
}

function closure(manifest: Record<string, ManifestChunk>, keys: string[]): Set<string> {
  const files = new Set<string>();
  const seen = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || seen.has(key)) return;
    seen.add(key);
    files.add(chunk.file);
    for (const css of chunk.css ?? []) files.add(css);
    for (const dep of chunk.imports ?? []) visit(dep);
  };
  keys.forEach(visit);
  return files;
}

const gz = (dist: string, files: Iterable<string>) => [...files].reduce((n, f) => n + gzipSync(readFileSync(path.join(dist, f)), { level: 9 }).length, 0);
const kb = (n: number) => `${(n / KB).toFixed(1)} KB`;

async function main(): Promise<void> {
  const dist = mkdtempSync(path.join(os.tmpdir(), "till-seller-bundle-"));
  try {
    await build({
      root: path.join(ROOT, "web"),
      configFile: false,
      logLevel: "error",
      publicDir: false,
      mode: "production",
      plugins: [react()],
      build: { outDir: dist, emptyOutDir: true, assetsDir: "assets", target: "es2022", manifest: true },
    });
    const manifest = JSON.parse(readFileSync(path.join(dist, ".vite", "manifest.json"), "utf8")) as Record<string, ManifestChunk>;
    const shell = closure(manifest, ["index.html", "src/seller/App.tsx"]);
    const shellGz = gz(dist, shell);
    const over: string[] = [];
    const listed = new Set(Object.values(SECTIONS).flat());
    const unlisted = lazyPages().filter((p) => !listed.has(p));
    if (unlisted.length) {
      console.error(`pages in no section (add them to SECTIONS): ${unlisted.join(", ")}`);
      over.push(...unlisted);
    }
    console.log(`seller shell (entry + app), gzipped: ${kb(shellGz)} of ${kb(SHELL_BUDGET)}`);
    if (shellGz > SHELL_BUDGET) over.push("shell");
    for (const [section, pages] of Object.entries(SECTIONS)) {
      const files = [...closure(manifest, pages.map((p) => `src/seller/pages/${p}.tsx`))].filter((f) => !shell.has(f));
      const size = gz(dist, files);
      const budget = SECTION_BUDGETS[section] ?? SECTION_BUDGET;
      console.log(`  ${section.padEnd(16)} +${kb(size).padStart(9)} of +${kb(budget).padStart(8)}  (${files.length} files)${size > budget ? "  OVER" : ""}`);
      if (size > budget) over.push(section);
    }
    if (over.length) {
      console.error(`over budget: ${over.join(", ")}`);
      process.exitCode = 1;
    }
  } finally {
    rmSync(dist, { recursive: true, force: true });
  }
}

await main();
