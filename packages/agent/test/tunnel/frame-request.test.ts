// A tunnel request frame becomes the Request the server's app is given. A plain one is a FrameRequest, which
// answers method, URL, headers and signal from the frame; it must read exactly as the full Request would, and
// anything it does not answer itself must still work through the full one.
import fc from "fast-check";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { frameRequest } from "../../src/tunnel/frame-request.js";
import type { RequestFrame } from "../../src/tunnel/protocol.js";

const frame = (over: Partial<RequestFrame> = {}): RequestFrame => ({
  t: "req",
  id: 1,
  method: "GET",
  url: "/v1/kv/a?recurse",
  headers: [["x-consul-token", "t1"]],
  ...over,
});

function full(f: RequestFrame, body?: Uint8Array): Request {
  return new Request(`http://tunnel${f.url}`, {
    method: f.method,
    headers: f.headers,
    ...(body ? { body } : {}),
  });
}

describe("frameRequest", () => {
  it("reads as a Request: method, URL, headers, a signal, instanceof", () => {
    const request = frameRequest(frame(), undefined);
    expect(request).toBeInstanceOf(Request);
    expect(request.method).toBe("GET");
    expect(request.url).toBe("http://tunnel/v1/kv/a?recurse");
    expect(request.headers.get("X-Consul-Token")).toBe("t1");
    expect(request.signal.aborted).toBe(false);
    expect(request.cache).toBe("default"); // a member it leaves to the full Request
    expect(request.bodyUsed).toBe(false);
  });

  it("keeps the signal it was given", () => {
    const abort = new AbortController();
    const request = frameRequest(frame({ url: "/v1/kv/a?index=5" }), undefined, abort.signal);
    abort.abort();
    expect(request.signal.aborted).toBe(true);
    expect(request.clone().signal.aborted).toBe(true);
  });

  it("gives its body to whatever reads it as a stream or text", async () => {
    const body = new TextEncoder().encode("hello");
    const request = frameRequest(frame({ method: "PUT" }), body);
    expect(request.body).not.toBeNull();
    expect(await request.text()).toBe("hello");
    expect(request.bodyUsed).toBe(true);
  });

  it("leaves an unusual method or target to a full Request, with its normalizing and its refusals", () => {
    expect(frameRequest(frame({ method: "get" }), undefined).method).toBe("GET");
    expect(frameRequest(frame({ url: "/v1/kv/a b" }), undefined).url).toBe("http://tunnel/v1/kv/a%20b");
    expect(frameRequest(frame({ url: "/v1/kv/x/../y" }), undefined).url).toBe("http://tunnel/v1/kv/y");
    expect(frameRequest(frame({ url: "/v1/%2e%2e/kv" }), undefined).url).toBe("http://tunnel/kv");
    expect(() => frameRequest(frame({ method: "CONNECT" }), undefined)).toThrow(TypeError);
    expect(() => frameRequest(frame({ headers: [["bad name", "v"]] }), undefined)).toThrow(TypeError);
  });

  it("has the URL a full Request has, for any target", () => {
    const target = fc
      .array(fc.constantFrom(..."/?=&%.#'\"` <>\\^{}|~aZ09-_:@[]!$()*+,;".split("")), { maxLength: 24 })
      .map((chars) => `/${chars.join("")}`);
    fc.assert(
      fc.property(target, fc.constantFrom("GET", "PUT", "delete", "PATCH"), (url, method) => {
        const f = frame({ url, method });
        let expected: string;
        try {
          expected = full(f).url;
        } catch {
          expect(() => frameRequest(f, undefined)).toThrow();
          return;
        }
        const request = frameRequest(f, undefined);
        expect(request.url).toBe(expected);
        expect(request.method).toBe(full(f).method);
      }),
      { numRuns: 3000 },
    );
  });

  it("serves a Hono app as a full Request does", async () => {
    const app = new Hono();
    app.put("/v1/kv/:key", async (c) =>
      c.json({
        key: c.req.param("key"),
        flags: c.req.query("flags"),
        token: c.req.header("x-consul-token"),
        headers: Object.keys(c.req.header()),
        body: await c.req.text(),
      }),
    );
    const f = frame({ method: "PUT", url: "/v1/kv/greeting?flags=3" });
    const body = new TextEncoder().encode("hi");
    const light = await (await app.fetch(frameRequest(f, body))).json();
    const reference = await (await app.fetch(full(f, body))).json();
    expect(light).toEqual(reference);
    expect(light).toEqual({
      key: "greeting",
      flags: "3",
      token: "t1",
      headers: ["x-consul-token"],
      body: "hi",
    });
  });
});
