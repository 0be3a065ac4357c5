import { PolarCore } from "@polar-sh/sdk/core.js";
import { afterAll, beforeAll, it } from "vitest";
import { readFileSync } from "node:fs";
import { parseCatalog } from "../../cli/catalog/model.js";
import { catalogClient, fetchServerCatalog } from "../../cli/catalog/server.js";
import { planCatalog, renderPlan } from "../../cli/catalog/plan.js";
import { applyPlan } from "../../cli/catalog/apply.js";
import { pullCatalog } from "../../cli/catalog/pull.js";
import { createSeller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => { server = await startServer(); });
afterAll(async () => server?.close());

it("scratch", async () => {
  const seller = await createSeller(server, "cat");
  const client = catalogClient(new PolarCore({ accessToken: seller.token, serverURL: server.url }));
  console.log((await pullCatalog(client)).text);
  const desired = parseCatalog(readFileSync("/tmp/cat/a.yaml", "utf8"));
  const plan = planCatalog(desired, await fetchServerCatalog(client));
  console.log(renderPlan(plan));
  await applyPlan(client, plan);
  const plan2 = planCatalog(desired, await fetchServerCatalog(client));
  console.log(renderPlan(plan2));
  console.log((await pullCatalog(client)).text);
});
