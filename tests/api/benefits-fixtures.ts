// The set-up the /v1/benefits tests share (benefits*.test.ts): a server of the file's own, the seller and an
// intruder, each with a meter and downloadable files (rows inserted directly), and a custom benefit's body.
import { afterAll, beforeAll } from "vitest";
import { file, meter } from "../../server/db/schema/index.js";
import { rawOn } from "../helpers/api.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

export interface BenefitFixture {
  server: TestServer;
  seller: Seller;
  other: Seller;
  meterId: string;
  otherMeterId: string;
  fileIds: string[];
  otherFileId: string;
  mediaFileId: string;
  db(): TestServer["database"]["db"];
  raw: ReturnType<typeof rawOn>;
  insertFile(organizationId: string, service?: string, isUploaded?: boolean): Promise<string>;
}

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function benefitFixture(): BenefitFixture {
  const db = () => fx.server.database.db;
  const insertMeter = async (organizationId: string): Promise<string> => {
    const [row] = await db()
      .insert(meter)
      .values({
        organizationId,
        name: "API calls",
        filter: { conjunction: "and", clauses: [] },
        aggregation: { func: "count" },
      })
      .returning();
    return row!.id;
  };
  const insertFile = async (organizationId: string, service = "downloadable", isUploaded = true): Promise<string> => {
    const [row] = await db()
      .insert(file)
      .values({ organizationId, name: "book.pdf", path: `${organizationId}/book.pdf`, mimeType: "application/pdf", size: 1024, service, isUploaded })
      .returning();
    return row!.id;
  };
  const fx = { db, raw: rawOn(() => fx.server), insertFile } as BenefitFixture;

  beforeAll(async () => {
    fx.server = await startServer();
    fx.seller = await createSeller(fx.server, "benefits");
    fx.other = await createSeller(fx.server, "intruder");
    fx.meterId = await insertMeter(fx.seller.organizationId);
    fx.otherMeterId = await insertMeter(fx.other.organizationId);
    fx.fileIds = [await insertFile(fx.seller.organizationId), await insertFile(fx.seller.organizationId)];
    fx.otherFileId = await insertFile(fx.other.organizationId);
    fx.mediaFileId = await insertFile(fx.seller.organizationId, "product_media");
  });
  afterAll(async () => fx.server?.close());
  return fx;
}

export const custom = (description: string, extra: Record<string, unknown> = {}) => ({
  type: "custom" as const,
  description,
  properties: { note: null },
  ...extra,
});
