// The worker keeps no list of jobs of its own: it runs what server/jobs/registry.ts lists, and the registry lists
// every domain's jobs.ts. A domain's jobs.ts left out of the registry would never run, so this test fails on one:
// every jobs.ts under server/billing is found on disk, imported, and each job, subscriber and schedule it exports
// must be the registry's. Names are unique, and a subscriber wakes a job the registry has.
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { JOBS, SCHEDULES, SUBSCRIBERS, type DomainJobs } from "../../server/jobs/registry.js";

const BILLING = fileURLToPath(new URL("../../server/billing", import.meta.url));

function jobsFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) jobsFiles(file, out);
    else if (name === "jobs.ts") out.push(file);
  }
  return out;
}

describe("the jobs registry", () => {
  const files = jobsFiles(BILLING);

  it("finds the domains' jobs.ts files", () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });

  it.each(files.map((f) => [path.relative(BILLING, f), f]))("lists everything %s exports", async (_name, file) => {
    const mod = (await import(pathToFileURL(file).href)) as DomainJobs;
    const exported = [...(mod.jobs ?? []), ...(mod.subscribers ?? []), ...(mod.schedules ?? [])];
    expect(exported.length, "a jobs.ts exports jobs, subscribers or schedules").toBeGreaterThan(0);
    for (const job of mod.jobs ?? []) expect(JOBS, `job ${job.name}`).toContain(job);
    for (const subscriber of mod.subscribers ?? []) expect(SUBSCRIBERS).toContain(subscriber);
    for (const schedule of mod.schedules ?? []) expect(SCHEDULES, `schedule ${schedule.name}`).toContain(schedule);
  });

  it("names each job and schedule once, and every subscriber wakes a job it has", () => {
    const names = JOBS.map((j) => j.name);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(SCHEDULES.map((s) => s.name)).size).toBe(SCHEDULES.length);
    for (const s of SUBSCRIBERS) if (s.wakes !== undefined) expect(names).toContain(s.wakes);
  });
});
