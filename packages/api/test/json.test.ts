import { JsonSyntaxError, readJson, writeJson } from "@cairn/json";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { canonicalizeKeys } from "../src/json/canonical-keys.js";

describe("JSON reader", () => {
  it("keeps integers above 2^53 exact as bigint", () => {
    expect(readJson('{"Flags":18446744073709551615}')).toEqual({ Flags: 18446744073709551615n });
    expect(readJson("[9007199254740993, 12, -9007199254740993]")).toEqual([
      9007199254740993n,
      12,
      -9007199254740993n,
    ]);
  });

  it("reads floats and exponents as numbers", () => {
    expect(readJson("[1.5, 1e3, -0.25E-2]")).toEqual([1.5, 1000, -0.0025]);
  });

  it("decodes escapes", () => {
    expect(readJson('"a\\n\\u00e9\\"\\\\\\/"')).toBe('a\né"\\/');
  });

  it("treats __proto__ as an ordinary key", () => {
    const v = readJson('{"__proto__":{"x":1}}') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it.each(["", "{", "[1,]", '{"a" 1}', "01", "tru", '"abc', "[1] x", '"\u0001"', "NaN"])(
    "rejects %j",
    (text) => {
      expect(() => readJson(text)).toThrow(JsonSyntaxError);
    },
  );

  it("refuses very deep nesting instead of overflowing the stack", () => {
    expect(() => readJson("[".repeat(100_000))).toThrow(JsonSyntaxError);
  });

  it("agrees with JSON.parse on everything JSON.parse reads exactly", () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        const expected = JSON.parse(text);
        const actual = readJson(text);
        expect(JSON.stringify(actual, (_k, v) => (typeof v === "bigint" ? Number(v) : v))).toBe(
          JSON.stringify(expected),
        );
      }),
    );
  });

  it("throws only JsonSyntaxError on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          readJson(text);
        } catch (err) {
          expect(err).toBeInstanceOf(JsonSyntaxError);
        }
      }),
    );
  });
});

describe("JSON writer", () => {
  it("writes bigint digits exactly", () => {
    expect(writeJson({ Flags: 18446744073709551615n, Index: 3 })).toBe(
      '{"Flags":18446744073709551615,"Index":3}',
    );
  });

  it("matches JSON.stringify for plain values", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(writeJson(v)).toBe(JSON.stringify(v));
      }),
    );
  });

  it("round-trips uint64 values through reader and writer", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (n) => {
        const back = readJson(writeJson({ Flags: n })) as { Flags: number | bigint };
        expect(BigInt(back.Flags)).toBe(n);
      }),
    );
  });
});

describe("case-insensitive field names", () => {
  const schema = z.object({
    TTL: z.string().optional(),
    LockDelay: z.string().optional(),
    Checks: z.array(z.object({ CheckID: z.string() })).optional(),
    Meta: z.record(z.string(), z.string()).optional(),
  });

  it("renames keys to the schema's spelling, recursively", () => {
    const out = canonicalizeKeys(
      schema,
      readJson('{"ttl":"10s","LOCKDELAY":"1s","checks":[{"checkid":"a"}]}'),
    );
    expect(schema.parse(out)).toEqual({ TTL: "10s", LockDelay: "1s", Checks: [{ CheckID: "a" }] });
  });

  it("leaves keys of free-form maps alone", () => {
    const out = canonicalizeKeys(schema, readJson('{"meta":{"ttl":"x","Ttl":"y"}}'));
    expect(schema.parse(out)).toEqual({ Meta: { ttl: "x", Ttl: "y" } });
  });

  it("prefers the exact spelling, later duplicates overwrite", () => {
    expect(schema.parse(canonicalizeKeys(schema, readJson('{"ttl":"1s","TTL":"2s"}')))).toEqual({
      TTL: "2s",
    });
    expect(schema.parse(canonicalizeKeys(schema, readJson('{"TTL":"1s","Ttl":"2s"}')))).toEqual({
      TTL: "2s",
    });
  });
});
