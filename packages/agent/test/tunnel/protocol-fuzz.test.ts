// The tunnel's frame decoders face whatever arrives on the socket: arbitrary bytes and arbitrary msgpack
// values must decode to a well-formed frame or to undefined, never throw.
import fc from "fast-check";
import { pack } from "msgpackr";
import { describe, expect, it } from "vitest";
import {
  decodeClientFrame,
  decodeServerFrame,
  encodeFrame,
  isStaleRead,
  type RequestFrame,
  type ResponseFrame,
} from "../../src/tunnel/protocol.js";

const decoders = [decodeClientFrame, decodeServerFrame];

const frameLike = fc.record(
  {
    t: fc.oneof(fc.constantFrom("req", "cancel", "call", "res", "result"), fc.string()),
    id: fc.oneof(fc.integer(), fc.double(), fc.string()),
    method: fc.oneof(fc.string(), fc.integer()),
    url: fc.oneof(fc.string(), fc.constant(null)),
    headers: fc.oneof(fc.array(fc.tuple(fc.string(), fc.string())), fc.anything()),
    body: fc.oneof(fc.uint8Array(), fc.string(), fc.constant(undefined)),
    args: fc.oneof(fc.array(fc.anything()), fc.anything()),
    status: fc.oneof(fc.integer(), fc.string()),
    error: fc.oneof(fc.string(), fc.integer()),
    leader: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
    term: fc.oneof(fc.integer(), fc.double(), fc.string()),
    also: fc.oneof(fc.array(fc.oneof(fc.integer(), fc.double(), fc.string())), fc.anything()),
  },
  { requiredKeys: [] },
);

describe("tunnel frame decoders", () => {
  it("never throw on arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        for (const decode of decoders) expect(() => decode(bytes)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it("never throw on arbitrary frame-shaped values, and what they accept has the fields its kind needs", () => {
    fc.assert(
      fc.property(frameLike, (value) => {
        const bytes = pack(value);
        const client = decodeClientFrame(bytes);
        if (client?.t === "req") expect(typeof client.url).toBe("string");
        const server = decodeServerFrame(bytes);
        if (server?.t === "res") {
          expect(typeof server.status).toBe("number");
          expect(["string", "undefined"]).toContain(typeof server.leader);
          if (server.leader !== undefined) expect(Number.isSafeInteger(server.term)).toBe(true);
          for (const id of server.also ?? []) expect(Number.isSafeInteger(id) && id > 0).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("round-trips the frames it encodes", () => {
    const frame: RequestFrame = {
      t: "req",
      id: 7,
      method: "GET",
      url: "/v1/kv/a?index=3",
      headers: [["x", "y"]],
    };
    expect(decodeClientFrame(encodeFrame(frame))).toEqual(frame);
    const answer: ResponseFrame = { t: "res", id: 7, status: 200, headers: [], also: [8, 9] };
    expect(decodeServerFrame(encodeFrame(answer))).toEqual(answer);
  });
});

describe("isStaleRead", () => {
  it("is a GET or HEAD with stale or max_stale in its query string", () => {
    expect(isStaleRead("GET", "/v1/kv/a?stale")).toBe(true);
    expect(isStaleRead("GET", "/v1/kv/a?index=3&stale=&wait=1s")).toBe(true);
    expect(isStaleRead("HEAD", "/v1/kv/a?max_stale=5s")).toBe(true);
    expect(isStaleRead("GET", "/v1/kv/a")).toBe(false);
    expect(isStaleRead("GET", "/v1/kv/stale")).toBe(false);
    expect(isStaleRead("GET", "/v1/kv/a?stalest")).toBe(false);
    expect(isStaleRead("GET", "/v1/kv/a?consistent")).toBe(false);
    expect(isStaleRead("PUT", "/v1/kv/a?stale")).toBe(false);
  });
});
