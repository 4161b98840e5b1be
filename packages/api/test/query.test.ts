import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HttpError } from "../src/http/errors.js";
import { Query } from "../src/http/query.js";
import { DEFAULT_WAIT_MS, MAX_WAIT_MS, parseReadOptions } from "../src/http/read-options.js";
import { extractNamespace } from "../src/middleware/namespace.js";
import { extractToken } from "../src/middleware/token.js";

const noJitter = () => 0;
const opts = (search: string, random = noJitter) => parseReadOptions(new Query(search), random);

describe("read options", () => {
  it("defaults to default consistency, no index, a 5 minute wait", () => {
    expect(opts("")).toEqual({
      consistency: "default",
      maxStaleMs: undefined,
      minIndex: 0n,
      waitMs: DEFAULT_WAIT_MS,
    });
  });

  it("reads stale, consistent and max_stale", () => {
    expect(opts("stale").consistency).toBe("stale");
    expect(opts("consistent=").consistency).toBe("consistent");
    expect(opts("max_stale=5s")).toMatchObject({ consistency: "stale", maxStaleMs: 5000 });
  });

  it("refuses stale with consistent", () => {
    expect(() => opts("stale&consistent")).toThrow(/Cannot specify \?stale with \?consistent/);
    expect(() => opts("max_stale=1s&consistent")).toThrow(HttpError);
  });

  it("caps wait at 10 minutes and adds jitter of up to wait/16", () => {
    expect(opts("wait=1h").waitMs).toBe(MAX_WAIT_MS);
    expect(opts("wait=1600ms", () => 0.999).waitMs).toBe(1699);
    expect(opts("wait=9.97s").waitMs).toBe(9970);
  });

  it("keeps the client's index exact up to 2^64-1", () => {
    expect(opts("index=18446744073709551615").minIndex).toBe(18446744073709551615n);
  });

  it.each([
    "index=abc",
    "index=-1",
    "index=1.5",
    "index=18446744073709551616",
    "wait=5",
    "wait=soon",
    "max_stale=x",
  ])("rejects %s with a 400", (search) => {
    try {
      opts(search);
      throw new Error("accepted");
    } catch (err) {
      expect(err).toBeInstanceOf(HttpError);
      expect((err as HttpError).status).toBe(400);
    }
  });

  it("fuzz: any query string parses or is a 400, never anything else", () => {
    const key = fc.constantFrom(
      "index",
      "wait",
      "stale",
      "consistent",
      "max_stale",
      "recurse",
      "flags",
      "cas",
      "token",
      "%zz",
      "",
    );
    const value = fc.oneof(
      fc.string(),
      fc.integer().map(String),
      fc.constantFrom("1s", "9.97s", "0", "-1", "18446744073709551616", "%", "%G1"),
    );
    const pair = fc.tuple(key, value).map(([k, v]) => `${k}=${v}`);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(pair).map((p) => p.join("&")),
          fc.string(),
        ),
        (search) => {
          const q = new Query(search);
          for (const fn of [
            () => parseReadOptions(q, Math.random),
            () => q.uint64("flags"),
            () => q.uint64("cas"),
          ]) {
            try {
              const r = fn();
              if (typeof r === "object" && r !== null) {
                expect(r.waitMs).toBeGreaterThan(0);
                expect(r.waitMs).toBeLessThanOrEqual(MAX_WAIT_MS * (17 / 16));
              }
            } catch (err) {
              expect(err).toBeInstanceOf(HttpError);
              expect((err as HttpError).status).toBe(400);
              expect((err as HttpError).message).not.toMatch(/[\r\n]/);
            }
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("uint64 query values", () => {
  it("parses flags up to 2^64-1 exactly and refuses more", () => {
    expect(new Query("flags=18446744073709551615").uint64("flags")).toBe(18446744073709551615n);
    expect(() => new Query("flags=18446744073709551616").uint64("flags")).toThrow(/larger than 2\^64-1/);
    expect(() => new Query("flags=12a").uint64("flags")).toThrow(/not an unsigned integer/);
    expect(new Query("").uint64("flags")).toBeUndefined();
  });
});

describe("token and namespace", () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name];

  it("prefers ?token, then X-Service-Token / X-Consul-Token, then a Bearer token", () => {
    expect(extractToken("q", headers({ "x-consul-token": "h" }))).toBe("q");
    expect(extractToken(undefined, headers({ "x-service-token": "s", "x-consul-token": "h" }))).toBe("s");
    expect(extractToken(undefined, headers({ "x-consul-token": "h" }))).toBe("h");
    expect(extractToken(undefined, headers({ authorization: "Bearer  abc  " }))).toBe("abc");
    expect(extractToken(undefined, headers({ authorization: "Basic abc" }))).toBe("");
    expect(extractToken(undefined, headers({}))).toBe("");
  });

  it("takes ?ns, then the namespace headers, else default", () => {
    expect(extractNamespace("a", headers({ "x-service-namespace": "b" }))).toBe("a");
    expect(extractNamespace(undefined, headers({ "x-consul-namespace": "c" }))).toBe("c");
    expect(extractNamespace(undefined, headers({}))).toBe("default");
  });
});
