import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HttpError } from "../src/http/errors.js";
import { decodeTxn } from "../src/txn/decode.js";

const defaults = { maxKVValueBytes: 512 * 1024, datacenter: "dc1", namespace: "default" };
const decode = (body: unknown) => decodeTxn(typeof body === "string" ? body : JSON.stringify(body), defaults);

function rejection(body: unknown): HttpError {
  try {
    decode(body);
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  throw new Error("expected a rejection");
}

describe("transaction decoder", () => {
  it("decodes KV operations with base64 values and exact flags", () => {
    const { ops, writes } = decodeTxn(
      '[{"KV":{"Verb":"set","Key":"a","Value":"aGk=","Flags":18446744073709551615}},{"kv":{"verb":"get","key":"a"}}]',
      defaults,
    );
    expect(writes).toBe(1);
    expect(ops[0]).toEqual({
      KV: {
        Verb: "set",
        Key: "a",
        Value: new Uint8Array(Buffer.from("hi")),
        Flags: 18446744073709551615n,
        Namespace: "default",
      },
    });
    expect(ops[1]).toEqual({ KV: { Verb: "get", Key: "a", Namespace: "default" } });
  });

  it("counts only write verbs as writes", () => {
    const { writes } = decode([
      { KV: { Verb: "get-tree", Key: "" } },
      { KV: { Verb: "check-index", Key: "a", Index: 3 } },
      { Node: { Verb: "get", Node: { Node: "n1" } } },
    ]);
    expect(writes).toBe(0);
  });

  it("fills the agent's datacenter into node operations", () => {
    const { ops } = decode([{ Node: { Verb: "set", Node: { Node: "n1", Address: "10.0.0.1" } } }]);
    expect(ops[0]).toEqual({
      Node: { Verb: "set", Node: { Node: "n1", Address: "10.0.0.1", Datacenter: "dc1" } },
    });
  });

  it("accepts service and check operations", () => {
    const { ops, writes } = decode([
      { Service: { Verb: "set", Node: "n1", Service: { Service: "web", Port: 80, Tags: null } } },
      { Check: { Verb: "delete", Check: { Node: "n1", CheckID: "c1" } } },
    ]);
    expect(writes).toBe(2);
    expect(ops[0]).toEqual({
      Service: { Verb: "set", Node: "n1", Service: { Service: "web", Port: 80, Tags: [] } },
    });
  });

  it.each([
    ["not JSON", "[{", 400, /Failed to parse body/],
    ["not an array", { KV: {} }, 400, /array/],
    ["bad base64", [{ KV: { Verb: "set", Key: "a", Value: "***" } }], 400, /base64/],
    [
      "flags over 2^64-1",
      '[{"KV":{"Verb":"set","Key":"a","Value":null,"Flags":18446744073709551616}}]',
      400,
      /2\^64/,
    ],
    ["a verb that is not a string", [{ KV: { Verb: 5, Key: "a" } }], 400, /Verb/],
    ["a check that is not an object", [{ Check: { Verb: "set", Check: "n1" } }], 400, /Check/],
    [
      "65 operations",
      Array.from({ length: 65 }, () => ({ KV: { Verb: "get", Key: "a" } })),
      413,
      /too many operations \(65 > 64\)/,
    ],
  ])("rejects %s", (_name, body, status, reason) => {
    const err = rejection(body);
    expect(err.status).toBe(status);
    expect(err.message).toMatch(reason);
    expect(err.message).not.toContain("\n");
  });

  it.each([
    ["unknown verb", { KV: { Verb: "explode", Key: "a" } }, 'unknown KV verb "explode"'],
    ["missing verb", { KV: { Key: "a" } }, 'unknown KV verb ""'],
    ["missing key", { KV: { Verb: "get" } }, "Must provide key"],
    ["missing value on set", { KV: { Verb: "set", Key: "a" } }, 'missing Value for verb "set"'],
    ["missing index on cas", { KV: { Verb: "cas", Key: "a", Value: null } }, 'missing Index for verb "cas"'],
    [
      "missing session on lock",
      { KV: { Verb: "lock", Key: "a", Value: null, Session: "" } },
      "missing session",
    ],
    ["missing session on unlock", { KV: { Verb: "unlock", Key: "a", Value: null } }, "missing session"],
    [
      "two kinds in one op",
      { KV: { Verb: "get", Key: "a" }, Node: { Verb: "get", Node: { Node: "n" } } },
      "each operation needs exactly one of KV, Node, Service or Check",
    ],
    ["empty op", {}, "each operation needs exactly one of KV, Node, Service or Check"],
    ["unknown node verb", { Node: { Verb: "nope", Node: { Node: "n" } } }, 'unknown Node verb "nope"'],
    ["node without name or ID", { Node: { Verb: "set", Node: {} } }, "Must provide node"],
    ["service without node", { Service: { Verb: "set", Service: { Service: "web" } } }, "Must provide node"],
    [
      "service without name",
      { Service: { Verb: "set", Node: "n1", Service: {} } },
      "Must provide service name",
    ],
    [
      "check without CheckID or Name",
      { Check: { Verb: "set", Check: { Node: "n1" } } },
      "Must provide check ID",
    ],
    [
      "check with a bad status",
      { Check: { Verb: "set", Check: { Node: "n1", CheckID: "c", Status: "ok" } } },
      'Invalid check status "ok"',
    ],
  ])("reports %s as a problem of that operation, by OpIndex", (_name, op, what) => {
    const { ops, problems, writes } = decode([{ KV: { Verb: "get", Key: "fine" } }, op]);
    expect(problems).toEqual([{ OpIndex: 1, What: what }]);
    expect(ops[0]).toBeDefined();
    expect(ops[1]).toBeUndefined();
    expect(writes).toBe(0);
  });

  it("takes a check's Name as its CheckID when CheckID is empty, as Consul does", () => {
    const { ops, problems } = decode([{ Check: { Verb: "set", Check: { Node: "n1", Name: "disk" } } }]);
    expect(problems).toEqual([]);
    expect(ops[0]).toMatchObject({ Check: { Check: { CheckID: "disk" } } });
  });

  it("rejects a value over the KV limit with 413", () => {
    const big = Buffer.alloc(512 * 1024 + 1).toString("base64");
    const err = rejection([{ KV: { Verb: "set", Key: "big", Value: big } }]);
    expect(err.status).toBe(413);
    expect(err.message).toMatch(/too large/);
  });

  it("fuzz: arbitrary JSON never throws anything but a 400/413 HttpError", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          decode(value);
        } catch (err) {
          expect(err).toBeInstanceOf(HttpError);
          expect([400, 413]).toContain((err as HttpError).status);
        }
      }),
      { numRuns: 500 },
    );
  });

  const verbs = fc.constantFrom(
    "set",
    "cas",
    "lock",
    "unlock",
    "get",
    "get-tree",
    "check-index",
    "check-session",
    "check-not-exists",
    "delete",
    "delete-tree",
    "delete-cas",
    "bogus",
    "",
    "SET",
  );
  const scalar = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.bigInt(),
    fc.double(),
  );
  const kvOp = fc.record(
    {
      Verb: fc.oneof(verbs, scalar),
      Key: fc.oneof(fc.string(), scalar),
      Value: fc.oneof(fc.base64String(), scalar),
      Flags: scalar,
      Index: scalar,
      Session: fc.oneof(fc.uuid(), scalar),
    },
    { requiredKeys: [] },
  );
  const op = fc.oneof(
    fc.record({ KV: kvOp }),
    fc.record({
      Node: fc.record(
        {
          Verb: fc.oneof(verbs, scalar),
          Node: fc.oneof(fc.record({ Node: scalar, Address: scalar }, { requiredKeys: [] }), scalar),
        },
        { requiredKeys: [] },
      ),
    }),
    fc.record({
      Service: fc.record(
        {
          Verb: fc.oneof(verbs, scalar),
          Node: scalar,
          Service: fc.oneof(
            fc.record(
              { Service: scalar, Port: scalar, Tags: fc.oneof(fc.array(fc.string()), scalar) },
              { requiredKeys: [] },
            ),
            scalar,
          ),
        },
        { requiredKeys: [] },
      ),
    }),
    fc.record({
      Check: fc.record(
        {
          Verb: fc.oneof(verbs, scalar),
          Check: fc.oneof(
            fc.record({ Node: scalar, CheckID: scalar, Status: scalar }, { requiredKeys: [] }),
            scalar,
          ),
        },
        { requiredKeys: [] },
      ),
    }),
    fc.dictionary(fc.string(), scalar),
  );

  it("fuzz: structured operations decode or fail with a one-line 400/413", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 70 }), (ops) => {
        const text = JSON.stringify(ops, (_k, v) => (typeof v === "bigint" ? `${v}` : v));
        try {
          const decoded = decodeTxn(text, defaults);
          expect(decoded.ops.length).toBe(ops.length);
        } catch (err) {
          expect(err).toBeInstanceOf(HttpError);
          expect([400, 413]).toContain((err as HttpError).status);
          expect((err as HttpError).message).not.toMatch(/[\r\n]/);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("fuzz: arbitrary text never crashes the decoder", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        try {
          decodeTxn(text, defaults);
        } catch (err) {
          expect(err).toBeInstanceOf(HttpError);
        }
      }),
      { numRuns: 500 },
    );
  });
});
