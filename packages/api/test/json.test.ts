import { JsonSyntaxError, readJson, writeJson } from "@cairn/json";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { encodeResponse } from "../src/http/respond.js";
import { canonicalizeKeys, goBody } from "../src/json/canonical-keys.js";

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

describe("JSON null as Go's decoder reads it", () => {
  const duration = z.union([z.string(), z.number()]);
  const schema = z.object({
    Name: z.string(),
    LastContactThreshold: duration.optional(),
    Meta: z.record(z.string(), z.string()).optional(),
    Tags: z.array(z.string()).optional(),
    Weights: z.object({ Passing: z.number() }).optional(),
    // A field whose schema gives null a meaning of its own sees it.
    Value: z.string().nullable().optional(),
  });

  it("a null body is an empty object, an empty list, or null where the schema takes null", () => {
    expect(goBody(schema, null)).toEqual({});
    expect(goBody(z.array(z.string()), null)).toEqual([]);
    expect(goBody(schema.nullable(), null)).toBeNull();
  });

  it("a null member of an optional field is a field not sent, at any depth", () => {
    const body = readJson(
      '{"name":"x","LastContactThreshold":null,"meta":null,"Tags":null,"Weights":null,"value":null}',
    );
    expect(schema.parse(goBody(schema, body))).toEqual({ Name: "x", Value: null });
    const list = z.array(schema);
    expect(list.parse(goBody(list, readJson('[{"Name":"a","Weights":null}]')))).toEqual([{ Name: "a" }]);
  });

  it("a null member of a required field stays, so zod names the field", () => {
    const parsed = schema.safeParse(goBody(schema, readJson('{"Name":null}')));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["Name"]);
  });
});

describe("the namespace rule of every response", () => {
  it("leaves out a default Namespace or Partition at any depth, keeps any other", () => {
    const body = [
      { Key: "a", Namespace: "default", Partition: "default", Nested: { Namespace: "default", ID: 1 } },
      { Key: "b", Namespace: "team", Partition: "" },
    ];
    expect(encodeResponse(body)).toBe('[{"Key":"a","Nested":{"ID":1}},{"Key":"b","Namespace":"team"}]');
  });

  it("writes the user's free-form maps as they are", () => {
    expect(encodeResponse({ Meta: { Namespace: "default" }, Namespace: "default" })).toBe(
      '{"Meta":{"Namespace":"default"}}',
    );
  });
});
