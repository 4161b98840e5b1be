import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { serve } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { afterEach, describe, expect, it } from "vitest";
import { httpEdge } from "../../src/http/edge.js";
import { type KnownForm, withKnownForm } from "../../src/http/known-form.js";
import { prepareAnswer, sendPrepared } from "../../src/http/prepared-answer.js";
import { writeWire } from "../../src/http/wire.js";

type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

const servers: ReturnType<typeof serve>[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    (s as unknown as { closeAllConnections(): void }).closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

async function start(fetch: Fetch): Promise<number> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

/** Sends `request` (raw bytes) on one connection and reads until `answers` complete answers arrived. */
function exchange(port: number, request: string, answers: number, bodies = true): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      text += chunk;
      if (completeAnswers(text, bodies) >= answers) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(text));
    socket.write(request);
  });
}

/** How many complete answers (head and Content-Length body, unless answers to HEAD) `text` holds. */
function completeAnswers(text: string, bodies = true): number {
  let count = 0;
  let at = 0;
  for (;;) {
    const end = text.indexOf("\r\n\r\n", at);
    if (end < 0) return count;
    const length = /content-length: (\d+)/i.exec(text.slice(at, end))?.[1];
    const next = end + 4 + (bodies ? Number(length ?? 0) : 0);
    if (next > text.length) return count;
    count++;
    at = next;
  }
}

const get = (path: string, extra = "") => `GET ${path} HTTP/1.1\r\nHost: test\r\n${extra}\r\n`;
const dated = (text: string) => text.replace(/Date: [^\r]+/g, "Date: (now)");

const answer = prepareAnswer(200, '{"Key":"a"}', {
  "X-Consul-Index": "7",
  "X-Service-Index": "7",
  "Content-Type": "application/json",
});

describe("answers written as one pre-rendered buffer", () => {
  it("are byte for byte what Node writes for the same answer, Date aside", async () => {
    const viaNode = await start(() => sendPrepared(answer));
    const viaWire = await start(httpEdge(() => sendPrepared(answer)));
    const node = await exchange(viaNode, get("/"), 1);
    const wire = await exchange(viaWire, get("/"), 1);
    expect(dated(wire)).toBe(dated(node));
    expect(wire).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(wire).toContain("\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 11\r\n");
    expect(wire.endsWith('\r\n\r\n{"Key":"a"}')).toBe(true);
    const date = /Date: ([^\r]+)/.exec(wire)?.[1] ?? "";
    expect(Math.abs(Date.parse(date) - Date.now())).toBeLessThan(5_000);
  });

  it("send a large body after the head, not copied into it, the exchange and the connection going on", async () => {
    const big = Buffer.alloc(300_000, "a");
    big.write("start", 0);
    big.write("end", big.length - 3);
    const large = prepareAnswer(200, big as Buffer<ArrayBuffer>, { "Content-Type": "application/json" });
    const viaNode = await start(() => sendPrepared(large));
    const viaWire = await start(httpEdge(() => sendPrepared(large)));
    const node = await exchange(viaNode, get("/"), 1);
    const wire = await exchange(viaWire, get("/1") + get("/2"), 2);
    const [first, second] = wire.split(/(?=HTTP\/1\.1 200 OK)/);
    expect(dated(first ?? "")).toBe(dated(node));
    expect(dated(second ?? "")).toBe(dated(node));
    expect(first).toContain("\r\nContent-Length: 300000\r\n\r\nstart");
  });

  it("frame a 404 without a body by its length, as Consul does, where Node would send it chunked", async () => {
    const missing = prepareAnswer(404, null, { "X-Consul-Index": "7" });
    const node = await exchange(await start(() => sendPrepared(missing)), get("/"), 1);
    const wire = await exchange(await start(httpEdge(() => sendPrepared(missing))), get("/"), 1);
    expect(dated(wire)).toBe(
      dated(node).replace("Transfer-Encoding: chunked\r\n\r\n0\r\n", "Content-Length: 0\r\n"),
    );
    expect(wire).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
  });

  it("keep the connection: pipelined requests are answered in order, the ones queued behind an answer through Node", async () => {
    let n = 0;
    const wrote: boolean[] = [];
    const port = await start((_request, env) => {
      const form = prepareAnswer(200, `answer ${++n}`, { "Content-Type": "text/plain" });
      wrote.push(writeWire(env, form));
      return wrote[wrote.length - 1] ? RESPONSE_ALREADY_SENT : sendPrepared(form);
    });
    const text = await exchange(port, get("/1") + get("/2") + get("/3"), 3);
    expect(text.match(/answer \d/g)).toEqual(["answer 1", "answer 2", "answer 3"]);
    expect(completeAnswers(text)).toBe(3);
    // Node parses the pipelined requests while the first is answered: theirs wait for the socket.
    expect(wrote[0]).toBe(true);
  });

  it("serve a keep-alive client request after request on one connection", async () => {
    let connections = 0;
    const port = await start(httpEdge(() => sendPrepared(answer)));
    servers[servers.length - 1]?.on("connection", () => connections++);
    const agent = new (await import("node:http")).Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await fetchWith(agent, port);
        expect(res.status).toBe(200);
        expect(res.headers["x-consul-index"]).toBe("7");
        expect(res.headers.vary).toBe("Accept-Encoding");
        expect(res.body).toBe('{"Key":"a"}');
      }
      expect(connections).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it("leave to Node whatever is not the plain case", async () => {
    const results: Record<string, boolean> = {};
    const crooked: KnownForm = { status: 200, body: "x", headers: { "X-Bad": "a\nb" }, reusable: false };
    const control: KnownForm = { status: 200, body: "x", headers: { "X-Bad": "a\u0007b" }, reusable: false };
    const port = await start((request, env) => {
      const name = new URL(request.url).pathname.slice(1);
      const form =
        name === "no-content"
          ? { status: 204, body: null, headers: {}, reusable: false as const }
          : name === "crooked"
            ? crooked
            : name === "control"
              ? control
              : answer;
      if (name === "own-header")
        (env as { outgoing: { setHeader(n: string, v: string): void } }).outgoing.setHeader("X-Own", "1");
      results[name] = writeWire(env, form);
      return results[name]
        ? RESPONSE_ALREADY_SENT
        : withKnownForm(new Response("x", { status: form.status }), form);
    });
    const head = await exchange(port, `HEAD /head HTTP/1.1\r\nHost: test\r\n\r\n`, 1, false);
    const old = await exchange(port, "GET /http10 HTTP/1.0\r\n\r\n", 1);
    const closing = await exchange(port, get("/closing", "Connection: close\r\n"), 1);
    await exchange(port, get("/no-content"), 1, false);
    await exchange(port, get("/crooked"), 1);
    await exchange(port, get("/control"), 1);
    await exchange(port, get("/own-header"), 1);
    await exchange(port, get("/plain"), 1);
    expect(results).toEqual({
      head: false,
      http10: false,
      closing: false,
      "no-content": false,
      crooked: false,
      control: false,
      "own-header": false,
      plain: true,
    });
    expect(head).not.toContain("X-Consul-Index");
    expect(old).toMatch(/^HTTP\/1\.1 200/);
    expect(closing).toContain("Connection: close");
  });
});

async function fetchWith(
  agent: import("node:http").Agent,
  port: number,
): Promise<{ status: number; headers: import("node:http").IncomingHttpHeaders; body: string }> {
  const { request } = await import("node:http");
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/", agent }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}
