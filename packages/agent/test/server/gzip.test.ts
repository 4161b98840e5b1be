// Compressed answers over a real -dev agent's HTTP port, as Consul's gzip handler gives them: a client that
// sends Accept-Encoding: gzip gets a large answer gzip-encoded (memoized reads and the agent cache included),
// one that does not gets it plain, and small answers and log streams stay plain. Raw node:http, so nothing
// decodes on the test's side unasked.
import { request as httpRequest } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  AGENT_START_MS,
  type AgentProcess,
  AgentScratch,
  awaitHttp,
  freePorts,
  http,
  waitFor,
} from "../../../../scripts/lib/index.js";

const NODE = "gz";
const scratch = new AgentScratch();
let agent: AgentProcess;

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One GET with exactly these headers; the body as it came off the wire. */
function rawGet(path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${agent.url}${path}`, { headers, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  const [httpPort, serverPort] = await freePorts(2);
  agent = scratch.spawn({
    name: NODE,
    ports: { http: httpPort!, server: serverPort! },
    flags: ["-dev", "-node", NODE],
    logFile: scratch.path("gz.log"),
  });
  await awaitHttp(agent);
  await waitFor(
    "the agent's node in the catalog",
    async () => ((await http(`${agent.url}/v1/catalog/node/${NODE}`)).status === 200 ? true : undefined),
    30_000,
  );
  // Enough instances that a health answer is several kilobytes.
  for (let i = 0; i < 40; i++) {
    const r = await http(
      `${agent.url}/v1/catalog/register`,
      "PUT",
      JSON.stringify({
        Node: `n${i}`,
        Address: `10.0.0.${i}`,
        Service: { ID: `web-${i}`, Service: "web", Port: 8080, Tags: ["primary", "v2"] },
      }),
    );
    expect(r.status).toBe(200);
  }
}, AGENT_START_MS + 60_000);

afterAll(() => scratch.dispose());

it.each([
  ["a memoized list read", "/v1/health/service/web"],
  ["the agent cache", "/v1/health/service/web?cached"],
  ["an answer encoded per request", "/v1/catalog/nodes"],
])(
  "%s goes out gzip-encoded to a client that accepts it, and plain to one that does not",
  async (_what, path) => {
    const plain = await rawGet(path, {});
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toBe("Accept-Encoding");
    expect(plain.body.length).toBeGreaterThan(2_000);
    for (let round = 0; round < 2; round++) {
      const zipped = await rawGet(path, { "Accept-Encoding": "gzip, deflate" });
      expect(zipped.status).toBe(200);
      expect(zipped.headers["content-encoding"]).toBe("gzip");
      expect(zipped.headers.vary).toBe("Accept-Encoding");
      expect(zipped.headers["x-consul-index"]).toBe(plain.headers["x-consul-index"]);
      expect(Number(zipped.headers["content-length"])).toBe(zipped.body.length);
      expect(zipped.body.length).toBeLessThan(plain.body.length / 4);
      expect(JSON.parse(gunzipSync(zipped.body).toString())).toEqual(JSON.parse(plain.body.toString()));
    }
  },
);

it("small answers stay plain even when gzip is accepted", async () => {
  const r = await rawGet("/v1/status/leader", { "Accept-Encoding": "gzip" });
  expect(r.status).toBe(200);
  expect(r.headers["content-encoding"]).toBeUndefined();
  expect(JSON.parse(r.body.toString())).toMatch(/:\d+$/);
});

it("an error answer is not compressed into something a client cannot read", async () => {
  const r = await rawGet("/v1/health/service/web?index=abc", { "Accept-Encoding": "gzip" });
  expect(r.status).toBe(400);
  expect(r.headers["content-encoding"]).toBeUndefined();
  expect(r.body.toString()).not.toBe("");
});
