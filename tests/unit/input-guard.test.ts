// The input guard's scan and walk (server/http/input-guard.ts): depth, value and key bounds counted outside
// strings only, escapes that need the walk, and the walk's paths.
import { describe, expect, it } from "vitest";
import Fastify, { errorCodes, type FastifyRequest } from "fastify";
import { findUnstorable, installInputGuard, RejectedInput, unstorable } from "../../server/http/input-guard.js";
import { JsonScanner, scanJson } from "../../server/http/json-scan.js";
import { parseJsonSliced, scanJsonSliced, SLICED_PARSE_THRESHOLD } from "../../server/http/json-sliced.js";
import { markInputRefusal } from "../../server/http/idempotency.js";

const small = { depth: 3, values: 10, keys: 2, names: 10 };

describe("scanJson", () => {
  it("counts nesting outside strings only, escaped quotes included", () => {
    expect(scanJson("[[[1]]]", small).over).toBeNull();
    expect(scanJson("[[[[1]]]]", small).over).toBe("depth");
    expect(scanJson('{"a":{"b":{"c":1}}}', small).over).toBeNull();
    expect(scanJson('{"a":{"b":{"c":{}}}}', small).over).toBe("depth");
    expect(scanJson('["[[[[[[", "{{{{"]', small).over).toBeNull();
    expect(scanJson('["\\"[[[[[[", "\\\\", [[1]]]', small).over).toBeNull();
    expect(scanJson('["\\\\"]]]', small).over).toBeNull();
    // an escaped backslash ends before the quote: the quote closes the string, the brackets after it count
    expect(scanJson('["\\\\",[[[1]]]]', small).over).toBe("depth");
  });

  it("finds a long string's end past escapes, however far apart (strings read inline, then skipped with indexOf)", () => {
    const pad = (n: number) => "p".repeat(n);
    for (const gap of [0, 1, 31, 32, 33, 100, 5000]) {
      // brackets inside the string never count; the ones after it do
      const inside = `${pad(gap)}\\"[[[[${pad(gap)}\\\\${pad(gap)}\\u0041${pad(gap)}`;
      expect(scanJson(`["${inside}"]`, small).over).toBeNull();
      expect(scanJson(`["${inside}",[[[1]]]]`, small).over).toBe("depth");
      expect(scanJson(`["${inside}", "${inside}", [[1]]]`, small).over).toBeNull();
    }
    expect(scanJson(`["${"\\\"".repeat(10_000)}",[[[1]]]]`, small).over).toBe("depth");
    // unterminated: left to JSON.parse
    expect(scanJson(`["${pad(100)}`, small).over).toBeNull();
    expect(scanJson(`["${pad(100)}\\`, small).over).toBeNull();
  });

  it("tells whether any \\u escape was seen (a key may then spell __proto__ in escapes)", () => {
    expect(scanJson('{"a":"\\n\\"x"}').unicodeEscapes).toBe(false);
    expect(scanJson('{"\\u005f_proto__":{}}').unicodeEscapes).toBe(true);
    expect(scanJson(`{"a":"${"p".repeat(100)}\\u0041"}`).unicodeEscapes).toBe(true);
  });

  it("tells whether a key is written __proto__ or constructor, in any object of a run of alike ones", () => {
    expect(scanJson('{"a":"__proto__","b":["constructor"]}').protoKeys).toBe(false);
    expect(scanJson('{"__proto__":1}').protoKeys).toBe(true);
    expect(scanJson('[{"a":1,"b":2},{"a":1,"b":2},{"a":1,"constructor":2}]').protoKeys).toBe(true);
    expect(scanJson('[{"a":{"x":1}},{"a":{"__proto__":1}}]').protoKeys).toBe(true);
  });

  it("counts values and keys per object", () => {
    expect(scanJson("[1,2,3,4,5,6,7,8,9]", small).over).toBeNull();
    expect(scanJson("[1,2,3,4,5,6,7,8,9,10,11]", small).over).toBe("values");
    expect(scanJson('{"a":1,"b":{"c":1,"d":2},"e":[1]}', small).over).toBe("keys");
    expect(scanJson('{"a":1,"b":{"c":1,"d":2}}', small).over).toBeNull();
    expect(scanJson('{"a:b:c":1}', small).over).toBeNull();
    expect(scanJson('[{"a":1,"b":2},{"a":1,"b":2}]', small).over).toBeNull();
  });

  it("counts distinct key names over the whole body, not their uses, and not string values", () => {
    const names = { ...small, values: 1_000, names: 3 };
    expect(scanJson('[{"a":1,"b":2},{"b":1,"a":2},{"c":"d"},{"c":"e"}]', names).over).toBeNull();
    expect(scanJson('[{"a":1},{"b":2},{"c":3},{"d":4}]', names).over).toBe("names");
    expect(scanJson('{"a":{"b":{"c":"x:y"}},"a2":["p","q"]}', names).over).toBe("names");
    expect(scanJson('["a","b","c","d","e"]', names).over).toBeNull();
    // a long key (found with indexOf) counts as well
    expect(scanJson(`[{"${"k".repeat(100)}1":1},{"${"k".repeat(100)}2":1},{"x":1},{"y":1}]`, names).over).toBe("names");
    expect(scanJson(`[{"${"k".repeat(100)}1":1},{"${"k".repeat(100)}1":1},{"x":1},{"y":1}]`, names).over).toBeNull();
  });

  it("flags the escapes the parsed value must be walked for", () => {
    expect(scanJson('{"a":"\\u0000"}').suspect).toBe(true);
    expect(scanJson('{"a":"\\uD800"}').suspect).toBe(true);
    expect(scanJson('{"a":"\\udfff"}').suspect).toBe(true);
    expect(scanJson('{"a":"\\ud83d\\ude00"}').suspect).toBe(true);
    expect(scanJson('{"a":"\\u00e9\\n\\"\\\\u0000"}').suspect).toBe(false);
    expect(scanJson('{"a":"\\u0041"}').suspect).toBe(false);
  });

  it("scans a string of 400,000 escapes (a search for the closing quote per escape made it quadratic: minutes)", () => {
    const text = `{"a":"${"\\ud83d\\ude00".repeat(200_000)}","b":[[1]]}`;
    expect(scanJson(text)).toEqual({ over: null, suspect: true, unicodeEscapes: true, protoKeys: false });
    expect(scanJson(text, { ...small, values: 100 }).over).toBeNull();
  });
});

describe("findUnstorable", () => {
  it("names the first NUL or unpaired surrogate in a key or a value, with its path", () => {
    expect(findUnstorable({ a: [1, { b: "x\u0000" }] })).toEqual({ kind: "nul", loc: ["a", 1, "b"] });
    expect(findUnstorable({ a: { "k\ud800": 1 } })).toEqual({ kind: "surrogate", loc: ["a", "k\ud800"] });
    expect(findUnstorable(["ok", "\udc00"])).toEqual({ kind: "surrogate", loc: [1] });
    expect(findUnstorable({ a: "\ud83d\ude00", b: ["é", null, 1, true] })).toBeNull();
  });

  it("tells unpaired surrogates from pairs", () => {
    expect(unstorable("\ud800")).toBe("surrogate");
    expect(unstorable("a\udc00")).toBe("surrogate");
    expect(unstorable("\udc00\ud800")).toBe("surrogate");
    expect(unstorable("\ud83d\ude00")).toBeNull();
    expect(unstorable("a\u0000")).toBe("nul");
  });
});

describe("the guarded application/json parser", () => {
  async function parserApp() {
    const app = Fastify();
    installInputGuard(app, 1024 * 1024);
    app.post("/", async (req) => ({ body: req.body as unknown }));
    await app.ready();
    return app;
  }

  it("still refuses a __proto__ or constructor.prototype key, spelled out or escaped, and parses the rest", async () => {
    const app = await parserApp();
    const post = (payload: string) => app.inject({ method: "POST", url: "/", headers: { "content-type": "application/json" }, payload });
    for (const payload of [
      '{"__proto__":{"admin":true}}',
      '{"\\u005f_proto__":{"admin":true}}',
      '{"a":"x","b":{"constructor":{"prototype":{"admin":true}}}}',
      '{"\\u0063onstructor":{"prototype":{"admin":true}}}',
    ]) {
      expect((await post(payload)).statusCode, payload).toBe(400);
    }
    expect((await post('{"a":"__proto__ and constructor in a value","b":"\\u00e9"}')).json()).toEqual({
      body: { a: "__proto__ and constructor in a value", b: "é" },
    });
    expect((await post(`{"a":"${"x".repeat(100_000)}"}`)).json()).toEqual({ body: { a: "x".repeat(100_000) } });
    expect((await post("")).statusCode).toBe(400);
    expect((await post('{"a":')).statusCode).toBe(400);
    await app.close();
  });

  it("refuses a malformed body, small or sliced, with Fastify's code, which alone frees an Idempotency-Key", async () => {
    const app = await parserApp();
    const post = (payload: string) => app.inject({ method: "POST", url: "/", headers: { "content-type": "application/json" }, payload });
    const long = `{"a":[${'"x",'.repeat(SLICED_PARSE_THRESHOLD / 4)}]}`;
    expect(long.length).toBeGreaterThan(SLICED_PARSE_THRESHOLD);
    for (const payload of ['{"a":', long, `{"a":[${'"x",'.repeat(SLICED_PARSE_THRESHOLD / 4)}"y"}`]) {
      const res = await post(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json<{ code: string }>().code).toBe("FST_ERR_CTP_INVALID_JSON_BODY");
    }
    await app.close();
    const marked = (err: unknown) => {
      const req = {} as FastifyRequest;
      markInputRefusal(req, err);
      return req.inputRefused === true;
    };
    expect(marked(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY())).toBe(true);
    expect(marked(new RejectedInput("nul", "body", []))).toBe(true);
    // a SyntaxError of the server's own (JSON.parse of something stored, after a write) keeps the key's claim
    expect(marked(new SyntaxError("Unexpected token"))).toBe(false);
    expect(marked(Object.assign(new Error("x"), { code: 42 }))).toBe(false);
  });
});

/** A seeded random JSON text of about `size` characters: nested arrays and objects, escapes, odd whitespace. */
function randomJson(seed: number, size: number): string {
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  const ws = () => ["", " ", "\n  ", "\t"][rnd(4)]!;
  const scalar = () =>
    [
      () => `"s\\"${"x".repeat(rnd(40))}\\\\"`,
      () => String(rnd(1e6) / 7),
      () => "true",
      () => "null",
      () => `"\\u00e9${"q".repeat(rnd(3000))}\\ud83d\\ude00"`,
      () => `-${rnd(100)}e2`,
    ][rnd(6)]!();
  const gen = (depth: number, budget: number): string => {
    if (depth > 6 || budget < 50) return scalar();
    const parts: string[] = [];
    const isArray = rnd(2) === 0;
    for (let left = budget; left > 0; ) {
      const part = Math.min(left, rnd(budget) + 20);
      parts.push(isArray ? `${ws()}${gen(depth + 1, part)}${ws()}` : `${ws()}"k${rnd(30)}"${ws()}:${ws()}${gen(depth + 1, part)}`);
      left -= part;
    }
    return isArray ? `[${parts.join(",")}]` : `{${parts.join(",")}}`;
  };
  return ws() + gen(0, size) + ws();
}

describe("the sliced scan and parse (json-sliced.ts)", () => {
  const sliced = async (text: string, poison = false) => {
    const scanner = await scanJsonSliced(text);
    if (scanner.over) throw new RejectedInput(scanner.over, "body", []);
    return parseJsonSliced(text, scanner, { parsePiece: (piece) => JSON.parse(piece) as unknown, poison });
  };

  it("a scan in steps finds what one scan finds", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const text = randomJson(seed, 5_000 + seed * 3_000);
      for (const limits of [small, { depth: 32, values: 100_000, keys: 1000, names: 1000 }]) {
        const whole = scanJson(text, limits);
        const stepped = new JsonScanner(text, limits, 1024);
        let until = 0;
        while (!stepped.run((until += 97))) {
          // a step of 97 characters, paused inside strings too
        }
        expect(stepped.result, `seed ${seed}`).toEqual(whole);
      }
    }
  });

  it("gives the value JSON.parse gives, and refuses what JSON.parse refuses", async () => {
    for (let seed = 1; seed <= 25; seed++) {
      const text = randomJson(seed, 70_000 + seed * 12_000);
      const value = await sliced(text);
      expect(JSON.stringify(value), `seed ${seed}`).toBe(JSON.stringify(JSON.parse(text)));
      for (let m = 0; m < 4; m++) {
        const at = (seed * 7919 * (m + 1)) % text.length;
        const bad = text.slice(0, at) + ["}", ",", "x", '"'][m]! + text.slice(at);
        let expected: unknown;
        let valid = true;
        try {
          expected = JSON.parse(bad);
        } catch {
          valid = false;
        }
        const got = await sliced(bad).then(
          (v) => ({ ok: true, v }),
          (err: unknown) => ({ ok: false, v: err }),
        );
        if (got.v instanceof RejectedInput) continue; // a bound the insertion made: refused anyway
        expect(got.ok, `seed ${seed} insertion ${m}: ${bad.slice(Math.max(0, at - 20), at + 20)}`).toBe(valid);
        if (valid) expect(JSON.stringify(got.v)).toBe(JSON.stringify(expected));
        else expect((got.v as { statusCode?: number }).statusCode).toBe(400);
      }
    }
  });

  it("keeps duplicate keys as JSON.parse does and a __proto__ key as an own property, or refuses it as secure-json-parse", async () => {
    const pad = Array.from({ length: 900 }, (_, i) => `"p${i}":"${"v".repeat(80)}"`).join(",");
    const text = `{"a":1,${pad},"__proto__":{"polluted":true},"a":2,"big":[${pad.replace(/"p(\d+)":/g, "")}]}`;
    const value = (await sliced(text)) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(Object.keys(JSON.parse(text) as object));
    expect(value.a).toBe(2);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const bigProto = `{${pad},"__proto__":[${"1,".repeat(20_000)}1]}`;
    await expect(sliced(bigProto, true)).rejects.toMatchObject({ statusCode: 400, message: "Object contains forbidden prototype property" });
  });

  it("names the place of an unstorable string in any piece", async () => {
    const items = Array.from({ length: 5000 }, (_, i) => `{"i":${i},"s":"${"t".repeat(20)}"}`);
    items[4321] = `{"i":4321,"s":"bad\\u0000"}`;
    const text = `{"list":[${items.join(",")}],"tail":{"\\udfff":1}}`;
    await expect(sliced(text)).rejects.toMatchObject({ kind: "nul", loc: ["list", 4321, "s"] });
    await expect(sliced(text.replace("bad\\u0000", "ok"))).rejects.toMatchObject({ kind: "surrogate", loc: ["tail", "\udfff"] });
  });
});
