// The agent cache (`?cached`) on real agents: a server with ACLs on and a client agent joined to it.
// Both answer cached reads themselves, keep refresh kinds current with a background blocking query,
// keep each token's results apart, and serve stale results when the servers are gone only as the
// client's Cache-Control allows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT_START_MS,
  type AgentProcess,
  AgentScratch,
  aclHcl,
  awaitHttp,
  clientFlags,
  freePorts,
  http,
  kill,
  tokenWith as sharedTokenWith,
  sleep,
  startAclServer,
  waitFor,
} from "../../../../scripts/lib/index.js";

const ROOT = "00000000-0000-4000-8000-0000000000aa";
const WEB_READER = "00000000-0000-4000-8000-000000000001";
const OTHER_READER = "00000000-0000-4000-8000-000000000002";
const DOOMED = "00000000-0000-4000-8000-000000000003";

const scratch = new AgentScratch();
let server: AgentProcess;
let client: AgentProcess;

function call(
  agent: AgentProcess,
  path: string,
  token = ROOT,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  return http(
    `${agent.url}${path}`,
    init.method ?? "GET",
    init.body === undefined ? undefined : JSON.stringify(init.body),
    {
      headers: { "X-Consul-Token": token, ...init.headers },
    },
  );
}

async function ok<T extends { status: number; text: string }>(p: Promise<T>): Promise<T> {
  const r = await p;
  expect(r.status, r.text).toBe(200);
  return r;
}

const tokenWith = (secret: string, name: string, rules: string) =>
  sharedTokenWith(server, ROOT, secret, name, rules);

const register = (node: string, service: string, port: number) =>
  ok(
    call(server, "/v1/catalog/register", ROOT, {
      method: "PUT",
      body: { Node: node, Address: "10.0.0.1", Service: { Service: service, Port: port } },
    }),
  );

const nodesOf = (text: string) => (JSON.parse(text) as { Node: string }[]).map((e) => e.Node).sort();

beforeAll(
  async () => {
    const [http1, rpc1, serf1, http2, rpc2, serf2] = await freePorts(6);
    server = await startAclServer(scratch, ROOT, { http: http1!, server: rpc1!, serfLan: serf1! });
    await tokenWith(
      WEB_READER,
      "web-reader",
      `service "web" { policy = "read" }\nnode_prefix "" { policy = "read" }`,
    );
    await tokenWith(
      OTHER_READER,
      "other-reader",
      `service "other" { policy = "read" }\nnode_prefix "" { policy = "read" }`,
    );
    await tokenWith(
      DOOMED,
      "doomed",
      `service "web" { policy = "read" }\nnode_prefix "" { policy = "read" }`,
    );
    await register("n1", "web", 80);
    client = scratch.spawn({
      name: "c1",
      ports: { http: http2!, server: rpc2!, serfLan: serf2! },
      flags: [
        ...clientFlags({ name: "c1", dataDir: scratch.path("c1"), join: [`127.0.0.1:${serf1}`] }),
        "-hcl",
        aclHcl(`agent = "${ROOT}"`),
      ],
      logFile: scratch.path("c1.log"),
    });
    await awaitHttp(client);
    await waitFor(
      "the client to reach the server",
      async () => ((await call(client, "/v1/catalog/service/web")).status === 200 ? true : undefined),
      20_000,
    );
  },
  2 * AGENT_START_MS + 40_000,
);

afterAll(async () => {
  await scratch.dispose();
});

describe("?cached on a server and on a client agent", () => {
  for (const which of ["server", "client"] as const) {
    it(`${which}: MISS then HIT with Age, the same index, then kept current by the background refresh`, async () => {
      const agent = which === "server" ? server : client;
      const path = `/v1/catalog/service/web?cached&tag-less=${which}`;
      const first = await ok(call(agent, path));
      expect(first.headers.get("x-cache")).toBe("MISS");
      expect(first.headers.get("age")).toBeNull();
      const second = await ok(call(agent, path));
      expect(second.headers.get("x-cache")).toBe("HIT");
      expect(second.headers.get("age")).toBe("0");
      expect(second.headers.get("x-consul-index")).toBe(first.headers.get("x-consul-index"));
      expect(nodesOf(second.text)).toContain("n1");
      await register(`n-${which}`, "web", 81);
      const seen = await waitFor(
        "the cached result to follow the catalog",
        async () => {
          const r = await ok(call(agent, path));
          return nodesOf(r.text).includes(`n-${which}`) ? r : undefined;
        },
        20_000,
      );
      expect(seen.headers.get("x-cache")).toBe("HIT");
      // Health and the service list are cached the same way.
      for (const p of ["/v1/health/service/web?cached", "/v1/catalog/services?cached"]) {
        await ok(call(agent, p));
        expect((await ok(call(agent, p))).headers.get("x-cache"), p).toBe("HIT");
      }
    });
  }

  it("a blocking ?cached query returns when the result changes, as a MISS with the new index", async () => {
    const path = "/v1/health/service/web?cached";
    const now = await ok(call(client, path));
    const index = Number(now.headers.get("x-consul-index"));
    const blocked = call(client, `${path}&index=${index}&wait=30s`);
    await sleep(200);
    await register("n-blocking", "web", 82);
    const r = await ok(blocked);
    expect(Number(r.headers.get("x-consul-index"))).toBeGreaterThan(index);
    // MISS when it waited; HIT only if the change beat the request to the agent on a loaded machine.
    expect(["MISS", "HIT"]).toContain(r.headers.get("x-cache"));
    expect(r.text).toContain("n-blocking");
  });

  it("an endpoint Consul does not cache is served uncached; bad Cache-Control and ?consistent are 400", async () => {
    const nodes = await ok(call(client, "/v1/catalog/nodes?cached"));
    expect(nodes.headers.get("x-cache")).toBeNull();
    const kv = await call(server, "/v1/kv/nothing?cached");
    expect([kv.status, kv.headers.get("x-cache")]).toEqual([404, null]);
    const bad = await call(client, "/v1/catalog/services?cached", ROOT, {
      headers: { "Cache-Control": "max-age=soon" },
    });
    expect([bad.status, bad.text]).toEqual([400, "Invalid Cache-Control header."]);
    const both = await call(server, "/v1/catalog/services?cached&consistent");
    expect([both.status, both.text]).toEqual([
      400,
      "Cannot specify ?cached with ?consistent, conflicting semantics.",
    ]);
  });

  it("keeps each token's results apart, and drops a result once its token is gone", async () => {
    const path = "/v1/catalog/service/web?cached";
    expect(nodesOf((await ok(call(client, path, WEB_READER))).text)).toContain("n1");
    const other = await ok(call(client, path, OTHER_READER));
    expect(other.headers.get("x-cache")).toBe("MISS");
    expect(JSON.parse(other.text)).toEqual([]);
    expect(JSON.parse((await ok(call(client, path, OTHER_READER))).text)).toEqual([]);
    expect(nodesOf((await ok(call(client, path, DOOMED))).text)).toContain("n1");
    expect((await ok(call(client, path, DOOMED))).headers.get("x-cache")).toBe("HIT");
    await ok(
      call(
        server,
        `/v1/acl/token/${(JSON.parse((await call(server, "/v1/acl/token/self", DOOMED)).text) as { AccessorID: string }).AccessorID}`,
        ROOT,
        { method: "DELETE" },
      ),
    );
    // The refresh that the next change wakes is refused, and the entry goes with it.
    await register("n-after-revoke", "web", 83);
    await waitFor(
      "the revoked token's cached result to go",
      async () => {
        const r = await call(client, path, DOOMED);
        return r.status === 403 ? r : undefined;
      },
      20_000,
    );
  });

  it("prepared query execution is cached simply: Age grows, max-age and must-revalidate refetch", async () => {
    const created = await ok(
      call(server, "/v1/query", ROOT, {
        method: "POST",
        body: { Name: "webq", Service: { Service: "web" } },
      }),
    );
    const id = (JSON.parse(created.text) as { ID: string }).ID;
    const path = `/v1/query/${id}/execute?cached`;
    expect((await ok(call(client, path))).headers.get("x-cache")).toBe("MISS");
    const hit = await ok(call(client, path));
    expect(hit.headers.get("x-cache")).toBe("HIT");
    await waitFor(
      "the cached answer to age",
      async () => {
        const r = await ok(call(client, path));
        return Number(r.headers.get("age")) >= 1 ? r : undefined;
      },
      10_000,
    );
    const fresh = await ok(call(client, path, ROOT, { headers: { "Cache-Control": "max-age=0" } }));
    expect(fresh.headers.get("x-cache")).toBe("MISS");
    const revalidated = await ok(
      call(client, path, ROOT, { headers: { "Cache-Control": "must-revalidate" } }),
    );
    expect(revalidated.headers.get("x-cache")).toBe("MISS");
    const young = await ok(call(client, path, ROOT, { headers: { "Cache-Control": "max-age=60" } }));
    expect(young.headers.get("x-cache")).toBe("HIT");
  });

  it("with the servers gone: refreshed results are still served, simple ones only within stale-if-error", async () => {
    const q = (JSON.parse((await ok(call(server, "/v1/query?cached"))).text) as { ID: string }[])[0]!;
    const execute = `/v1/query/${q.ID}/execute?cached`;
    await ok(call(client, execute));
    await ok(call(client, "/v1/catalog/service/web?cached"));
    await kill(server.process);
    await sleep(1100);
    const stale = await ok(
      call(client, execute, ROOT, { headers: { "Cache-Control": "max-age=0, stale-if-error=600" } }),
    );
    expect(stale.headers.get("x-cache")).toBe("HIT");
    const refused = await call(client, execute, ROOT, { headers: { "Cache-Control": "max-age=0" } });
    expect(refused.status).toBe(500);
    // Refreshed kinds ignore Cache-Control, as Consul's do.
    const kept = await ok(
      call(client, "/v1/catalog/service/web?cached", ROOT, { headers: { "Cache-Control": "max-age=0" } }),
    );
    expect(kept.headers.get("x-cache")).toBe("HIT");
    expect(nodesOf(kept.text)).toContain("n1");
    // Age counts from when the background refresh lost the servers.
    const aged = await waitFor(
      "the refresh to notice the servers are gone",
      async () => {
        const r = await ok(call(client, "/v1/catalog/service/web?cached"));
        return Number(r.headers.get("age")) >= 1 ? r : undefined;
      },
      30_000,
    );
    // A blocking query cannot be answered by anything newer: it gets the refresh's failure at once.
    const started = performance.now();
    const index = aged.headers.get("x-consul-index");
    const blocked = await call(client, `/v1/catalog/service/web?cached&index=${index}&wait=60s`);
    expect(blocked.status).toBe(500);
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});
