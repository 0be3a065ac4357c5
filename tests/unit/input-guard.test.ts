// The input guard's scan and walk (server/http/input-guard.ts): depth, value and key bounds counted outside
// strings only, escapes that need the walk, and the walk's paths.
import { describe, expect, it } from "vitest";
import Fastify from "fastify";
import { findUnstorable, installInputGuard, scanJson, unstorable } from "../../server/http/input-guard.js";

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
    expect(scanJson(text)).toEqual({ over: null, suspect: true, unicodeEscapes: true });
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
});
