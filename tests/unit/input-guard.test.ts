// The input guard's scan and walk (server/http/input-guard.ts): depth, value and key bounds counted outside
// strings only, escapes that need the walk, and the walk's paths.
import { describe, expect, it } from "vitest";
import { findUnstorable, scanJson, unstorable } from "../../server/http/input-guard.js";

const small = { depth: 3, values: 10, keys: 2 };

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

  it("counts values and keys per object", () => {
    expect(scanJson("[1,2,3,4,5,6,7,8,9]", small).over).toBeNull();
    expect(scanJson("[1,2,3,4,5,6,7,8,9,10,11]", small).over).toBe("values");
    expect(scanJson('{"a":1,"b":{"c":1,"d":2},"e":[1]}', small).over).toBe("keys");
    expect(scanJson('{"a":1,"b":{"c":1,"d":2}}', small).over).toBeNull();
    expect(scanJson('{"a:b:c":1}', small).over).toBeNull();
    expect(scanJson('[{"a":1,"b":2},{"a":1,"b":2}]', small).over).toBeNull();
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
    expect(scanJson(text)).toEqual({ over: null, suspect: true });
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
