import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { httpEdge } from "../../src/http/edge.js";
import { acceptsGzip } from "../../src/http/gzip.js";
import { withKnownForm, withReusableBody } from "../../src/http/known-form.js";
import { prepareAnswer, sendPrepared } from "../../src/http/prepared-answer.js";

const big = JSON.stringify(
  Array.from({ length: 200 }, (_, i) => ({ Node: `node-${i}`, Address: "10.0.0.1" })),
);
const JSON_TYPE = { "Content-Type": "application/json" };

function request(acceptEncoding?: string, method = "GET"): Request {
  return new Request("http://agent/v1/health/service/web", {
    method,
    headers: acceptEncoding === undefined ? {} : { "Accept-Encoding": acceptEncoding },
  });
}

async function bytes(r: Response): Promise<Buffer> {
  return Buffer.from(await r.arrayBuffer());
}

describe("Accept-Encoding", () => {
  it.each([
    ["gzip", true],
    ["gzip, deflate, br", true],
    ["deflate, GZIP;q=0.5", true],
    ["x-gzip", true],
    ["*", true],
    ["br, *;q=0.1", true],
    ["gzip;q=0", false],
    ["gzip;q=0.000, *", false],
    ["*;q=0", false],
    ["identity", false],
    ["deflate, br", false],
    ["", false],
  ])("%j admits gzip: %s", (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });

  it("no header admits nothing", () => {
    expect(acceptsGzip(null)).toBe(false);
  });
});

describe("gzip at the HTTP edge", () => {
  it("compresses a large JSON answer for a client that accepts gzip, keeping status and headers", async () => {
    const edge = httpEdge(
      () => new Response(big, { status: 200, headers: { ...JSON_TYPE, "X-Consul-Index": "7" } }),
    );
    const r = await edge(request("gzip, deflate"));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-encoding")).toBe("gzip");
    expect(r.headers.get("vary")).toBe("Accept-Encoding");
    expect(r.headers.get("x-consul-index")).toBe("7");
    expect(gunzipSync(await bytes(r)).toString()).toBe(big);
  });

  it("sends plain bodies to clients that did not ask, small bodies, HEAD, and non-JSON streams, all with Vary", async () => {
    // [request, response, the body expected through the edge]
    const cases: [Request, Response, string][] = [
      [request(), new Response(big, { headers: JSON_TYPE }), big],
      [request("gzip"), new Response('{"a":1}', { headers: JSON_TYPE }), '{"a":1}'],
      [request("gzip", "HEAD"), new Response(null, { headers: JSON_TYPE }), ""],
      [request("gzip"), new Response(big, { headers: { "Content-Type": "text/plain; charset=utf-8" } }), big],
      [request("gzip"), new Response(big, { headers: { ...JSON_TYPE, "Content-Encoding": "br" } }), big],
      [request("gzip"), new Response(null, { status: 304, headers: JSON_TYPE }), ""],
    ];
    for (const [req, res, expected] of cases) {
      const r = await httpEdge(() => res)(req);
      expect(r.headers.get("content-encoding")).not.toBe("gzip");
      expect(r.headers.get("vary")).toBe("Accept-Encoding");
      expect((await bytes(r)).toString()).toBe(expected);
    }
  });

  it("adds Accept-Encoding to an existing Vary once", async () => {
    const vary = async (existing: string) =>
      (
        await httpEdge(() => new Response("{}", { headers: { ...JSON_TYPE, Vary: existing } }))(request())
      ).headers.get("vary");
    expect(await vary("Origin")).toBe("Origin, Accept-Encoding");
    expect(await vary("origin, accept-encoding")).toBe("origin, accept-encoding");
    expect(await vary("*")).toBe("*");
  });

  it("compresses a body served again (a memoized answer) the same way each time", async () => {
    const body = Buffer.from(big);
    const edge = httpEdge(() => withReusableBody(new Response(body, { headers: JSON_TYPE }), body));
    const first = await bytes(await edge(request("gzip")));
    const second = await bytes(await edge(request("gzip")));
    expect(gunzipSync(first).toString()).toBe(big);
    expect(second.equals(first)).toBe(true);
    const plain = await edge(request());
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect((await bytes(plain)).toString()).toBe(big);
  });

  it("serves a prepared answer (a woken blocking query's) from its own form, with Vary from the start", async () => {
    const large = prepareAnswer(200, big, { ...JSON_TYPE, "X-Consul-Index": "9" });
    const small = prepareAnswer(200, '{"a":1}', JSON_TYPE);
    const missing = prepareAnswer(404, null, { "X-Consul-Index": "9" });
    const through = (answer: typeof large, req: Request) => httpEdge(() => sendPrepared(answer))(req);

    const zipped = await through(large, request("gzip"));
    expect([zipped.status, zipped.headers.get("content-encoding"), zipped.headers.get("vary")]).toEqual([
      200,
      "gzip",
      "Accept-Encoding",
    ]);
    expect(zipped.headers.get("x-consul-index")).toBe("9");
    const first = await bytes(zipped);
    expect(gunzipSync(first).toString()).toBe(big);
    // The same answer to the next waiter goes out in the same gzip form.
    expect((await bytes(await through(large, request("gzip")))).equals(first)).toBe(true);

    for (const [answer, req, body] of [
      [large, request(), big],
      [large, request("gzip", "HEAD"), ""],
      [small, request("gzip"), '{"a":1}'],
      [missing, request("gzip"), ""],
    ] as const) {
      const r = await through(answer, req);
      expect(r.headers.get("content-encoding")).toBeNull();
      expect(r.headers.get("vary")).toBe("Accept-Encoding");
      if (req.method !== "HEAD") expect((await bytes(r)).toString()).toBe(body);
    }
  });

  it("compresses a JSON string the route still holds without reading the Response back", async () => {
    const edge = httpEdge(() => {
      const response = new Response(big, { headers: JSON_TYPE });
      Object.defineProperty(response, "arrayBuffer", {
        value: () => Promise.reject(new Error("read back")),
      });
      return withKnownForm(response, { status: 200, body: big, reusable: false });
    });
    const r = await edge(request("gzip"));
    expect([r.headers.get("content-encoding"), r.headers.get("vary")]).toEqual(["gzip", "Accept-Encoding"]);
    expect(gunzipSync(await bytes(r)).toString()).toBe(big);
    expect((await edge(request())).headers.get("content-encoding")).toBeNull();
  });
});
