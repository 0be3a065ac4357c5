// DATABASE_URL as till reads it besides the driver: a URL naming several hosts (a failover set-up's,
// `postgres://a:5432,b:5432/db?target_session_attrs=read-write`) is no URL to `new URL`, which throws on it, so the
// pooler flag, the hosts for logs and the banner, and the session attributes are read without it.
import { describe, expect, it } from "vitest";
import { describeDatabase } from "../../server/banner.js";
import type { Config } from "../../server/config.js";
import { driverSessionAttrs, pooledUrl, serversOf } from "../../server/db/client.js";

const MULTI = "postgres://till:s3cret@10.0.0.1:5432,10.0.0.2:5433/till?target_session_attrs=read-write";

describe("a multi-host DATABASE_URL", () => {
  it("keeps its hosts and parameters through pooledUrl, which drops only till's pgbouncer flag", () => {
    expect(pooledUrl(MULTI)).toEqual({ url: MULTI, pooled: false });
    expect(pooledUrl(`${MULTI}&pgbouncer=true`)).toEqual({ url: MULTI, pooled: true });
    expect(pooledUrl("postgres://u@h/db?pgbouncer=true")).toEqual({ url: "postgres://u@h/db", pooled: true });
    expect(pooledUrl("postgres://u@h/db?pgbouncer=false&sslmode=require")).toEqual({ url: "postgres://u@h/db?sslmode=require", pooled: false });
    expect(pooledUrl("postgres://u@h/db")).toEqual({ url: "postgres://u@h/db", pooled: false });
  });

  it("names each host:port (5432 when none is given), never the password", () => {
    expect(serversOf(MULTI)).toEqual(["10.0.0.1:5432", "10.0.0.2:5433"]);
    expect(serversOf("postgresql://[::1]:5433,[::1]/x")).toEqual(["[::1]:5433", "[::1]:5432"]);
    expect(serversOf("postgres://db.example/till")).toEqual(["db.example:5432"]);
    expect(serversOf("mysql://h/db")).toBeUndefined();
    const banner = describeDatabase({ databaseUrl: MULTI, dataDir: "/var/lib/till" } as Config);
    expect(banner).toBe("PostgreSQL at 10.0.0.1:5432,10.0.0.2:5433/till");
    expect(banner).not.toContain("s3cret");
  });

  it("asks postgres.js for the primary where the URL says read-write (a hot standby reports itself writable)", () => {
    expect(driverSessionAttrs(MULTI)).toBe("primary");
    expect(driverSessionAttrs("postgres://a,b/db?target_session_attrs=primary")).toBeUndefined();
    expect(driverSessionAttrs("postgres://a,b/db?target_session_attrs=prefer-standby")).toBeUndefined();
    expect(driverSessionAttrs("postgres://a/db")).toBeUndefined();
  });
});
