// `till api <METHOD> <path> [-d json|@file|@-]`: any call to the server with the profile's credentials,
// printing the response JSON. For what has no command yet, and for scripts.
import { readFileSync } from "node:fs";
import { InvalidArgumentError, type Command } from "commander";
import { failFor, IDEMPOTENCY_HEADER, isWrite, newIdempotencyKey, request } from "../client.js";
import { examples, withContext } from "../command.js";
import { requireCredential, type Context } from "../context.js";
import { UsageError } from "../errors.js";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

export function parseMethod(value: string): string {
  const method = value.toUpperCase();
  if (!(METHODS as readonly string[]).includes(method)) {
    throw new InvalidArgumentError(`expected one of ${METHODS.join(", ")}.`);
  }
  return method;
}

export function parseKey(value: string): string {
  if (value.length === 0 || value.length > 255 || !/^[\x20-\x7e]+$/.test(value)) {
    throw new InvalidArgumentError("expected 1 to 255 visible ASCII characters.");
  }
  return value;
}

export function parsePath(value: string): string {
  if (!value.startsWith("/") || value.startsWith("//")) {
    throw new InvalidArgumentError("expected a path on the server starting with /, such as /v1/products/.");
  }
  return value;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString("utf8");
}

/** The request body from -d: inline JSON, @file or @- (stdin). */
async function readData(data: string): Promise<unknown> {
  let text = data;
  if (data === "@-") text = await readStdin();
  else if (data.startsWith("@")) {
    try {
      text = readFileSync(data.slice(1), "utf8");
    } catch (err) {
      throw new UsageError(`-d: cannot read ${data.slice(1)}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`-d: expected JSON, @file or @- (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** Writes the server takes Idempotency-Keys for: /v1 and the checkout request. */
const takesKeys = (method: string, path: string) => isWrite(method) && /^\/(v1\/|api\/auth\/checkout(\/|\?|$))/.test(path);

async function api(ctx: Context, opts: { data?: string; idempotencyKey?: string }, [method = "GET", path = "/"]: string[]): Promise<void> {
  const credential = requireCredential(ctx);
  const body = opts.data !== undefined ? await readData(opts.data) : undefined;
  // retried with its key only where the server honours keys: elsewhere a retry could do it twice
  const keyed = takesKeys(method, path);
  const key = opts.idempotencyKey ?? (keyed ? newIdempotencyKey() : undefined);
  const res = await request(ctx, method, path, keyed ? { body, credential, idempotencyKey: key } : { body, credential, headers: key ? { [IDEMPOTENCY_HEADER]: key } : {} });
  if (res.status < 200 || res.status >= 300) failFor(res, credential, `${method} ${path.split("?")[0]}`);
  if (res.body === null) return; // 204 No Content
  // a body that is not JSON is printed as it came (as a JSON string under --json)
  if (typeof res.body === "string") ctx.out.done(res.body, res.body);
  else ctx.out.printJson(res.body);
}

export function register(program: Command): void {
  program
    .command("api")
    .description("call any API path with your credentials and print the JSON response")
    .argument("<method>", "GET, POST, PUT, PATCH or DELETE", parseMethod)
    .argument("<path>", "path on the server, e.g. /v1/products/?limit=10", parsePath)
    .option("-d, --data <json>", "request body: JSON, @file to read it from a file, @- from stdin")
    .option("--idempotency-key <key>", "send this Idempotency-Key (writes to /v1 get a new one by default): reuse it to repeat a write that may have been made", parseKey)
    .addHelpText(
      "after",
      examples([
        "till api GET /v1/organizations/",
        "till api POST /v1/products/ -d '{\"name\":\"Pro\",\"prices\":[{\"amount_type\":\"free\"}]}'",
        "till api PATCH /v1/products/<id> -d @product.json",
        "echo '{\"name\":\"Pro\"}' | till api PATCH /v1/products/<id> -d @-",
        "till api POST /v1/checkouts/ -d @checkout.json --idempotency-key order-1042",
      ]) +
        "\nA non-2xx answer prints the server's error on stderr and exits 1 (4 for 401).\n" +
        "Writes carry an Idempotency-Key and are retried with it when the answer is lost; the server never does one twice.\n",
    )
    .action(withContext(api));
}
