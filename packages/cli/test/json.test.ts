import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { field, JsonSyntaxError, type JsonValue, parseJson, stringifyGo } from "../src/json.js";

describe("parseJson", () => {
  it("keeps integers above 2^53 exact and leaves small ones as numbers", () => {
    const v = parseJson(
      '[{"Flags":18446744073709551615,"CreateIndex":5,"Score":1.5,"Neg":-9007199254740993}]',
    );
    expect(v).toEqual([
      { Flags: 18446744073709551615n, CreateIndex: 5, Score: 1.5, Neg: -9007199254740993n },
    ]);
  });

  it("agrees with JSON.parse up to the precision JSON.parse loses", () => {
    const lossy = (v: JsonValue): unknown =>
      typeof v === "bigint"
        ? Number(v)
        : Array.isArray(v)
          ? v.map(lossy)
          : typeof v === "object" && v !== null
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, lossy(x)]))
            : v;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const text = JSON.stringify(value);
        const expected: unknown = JSON.parse(text);
        expect(lossy(parseJson(text))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("decodes escapes and rejects malformed text", () => {
    expect(parseJson(' "a\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9" ')).toBe('a"\\/\b\f\n\r\té');
    for (const bad of ["", "{", "[1,]", '{"a" 1}', "tru", '"\u0001"', "01", "1 2", '"\\x"']) {
      expect(() => parseJson(bad), bad).toThrow(JsonSyntaxError);
    }
  });

  it("does not let a __proto__ key change the prototype", () => {
    const v = parseJson('{"__proto__": {"polluted": true}}');
    // Objects come back with a null prototype, so the key is plain data and nothing is polluted.
    expect(Object.getPrototypeOf(v)).toBeNull();
    expect(Object.keys(v as object)).toEqual(["__proto__"]);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe("stringifyGo", () => {
  it("prints as Go's json.MarshalIndent with a tab indent", () => {
    const text = stringifyGo([{ key: "a<b>&c", flags: 18446744073709551615n, value: "" }]);
    expect(text).toBe(
      '[\n\t{\n\t\t"key": "a\\u003cb\\u003e\\u0026c",\n\t\t"flags": 18446744073709551615,\n\t\t"value": ""\n\t}\n]',
    );
    expect(stringifyGo([])).toBe("[]");
    expect(stringifyGo({})).toBe("{}");
  });

  it("round-trips through parseJson", () => {
    const v = [{ key: "x", flags: 12345678901234567890n, value: "aGk=", nested: [true, null, 1.5] }];
    expect(parseJson(stringifyGo(v))).toEqual(v);
  });
});

describe("field", () => {
  it("matches exactly first, then case-insensitively as Go's decoder does", () => {
    expect(field({ ttl: "a", TTL: "b" }, "TTL")).toBe("b");
    expect(field({ Ttl: "a" }, "TTL")).toBe("a");
    expect(field({ x: 1 }, "TTL")).toBeUndefined();
  });
});
