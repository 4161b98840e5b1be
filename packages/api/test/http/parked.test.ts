import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { serve } from "@hono/node-server";
import { type Context, Hono } from "hono";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { AclEnforcer } from "../../src/acl/enforcer.js";
import { createApi } from "../../src/app.js";
import { type ClusterBackend, NoClusterLeaderError } from "../../src/backend.js";
import type { ApiEnv } from "../../src/http/env.js";
import { unpark } from "../../src/http/parked.js";
import { LocalBackend } from "../../src/local-backend.js";
import { initAcls, ROOT } from "../acl/harness.js";

// A blocking query that has to wait hands Hono a placeholder and answers later (src/http/parked.ts): what it
// was built for (Hono's request released while the query waits) and what must still hold (the answer, its
// errors, its log line).

const lines: Record<string, unknown>[] = [];
const logger = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line)) });

interface Served {
  url: string;
  backend: LocalBackend;
  /** Every Hono Context made so far, weakly. */
  contexts: WeakRef<Context<ApiEnv>>[];
  setReadsFail(fail: boolean): void;
  close(): void;
}

const open: Served[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

/**
 * The API on a real HTTP server, inside an app that notes each request's Context; with `acl`, ACLs on, their
 * tables initialized, and the management token as the agent's default token.
 */
async function serveApi(acl = false): Promise<Served> {
  const backend = new LocalBackend();
  if (acl) await initAcls(backend);
  let readsFail = false;
  // Reads fail on demand (no leader) once a query is parked, to see how a later fault is answered.
  const wrapped = new Proxy(backend, {
    get(target, prop, receiver) {
      if (prop === "readBarrier" && readsFail) return () => Promise.reject(new NoClusterLeaderError());
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as ClusterBackend;
  const api = createApi({
    backend: wrapped,
    nodeName: "n1",
    datacenter: "dc1",
    logger,
    // Coordinate updates are applied in batches: one every 10 ms here.
    config: { coordinateUpdatePeriodMs: 10 },
    ...(acl
      ? {
          acl: new AclEnforcer({
            store: backend.store,
            datacenter: "dc1",
            defaultPolicy: "deny",
            // Requests without a token act with the management token.
            defaultToken: () => ROOT,
          }),
        }
      : {}),
  });
  const contexts: WeakRef<Context<ApiEnv>>[] = [];
  const outer = new Hono<ApiEnv>();
  outer.use((c, next) => {
    contexts.push(new WeakRef(c));
    return next();
  });
  outer.route("/", api);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve(
      { fetch: (request, env) => unpark(outer.fetch(request, env)), port: 0, hostname: "127.0.0.1" },
      () => resolve(s),
    );
  });
  const served: Served = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    backend,
    contexts,
    setReadsFail: (fail) => {
      readsFail = fail;
    },
    close: () => {
      (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      server.close();
    },
  };
  open.push(served);
  return served;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!condition()) throw new Error(`timed out waiting until ${what}`);
}

function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/** Writes `key`, returns the index a blocking GET of it must wait past. */
async function put(s: Served, key: string, value: string): Promise<number> {
  const res = await fetch(`${s.url}/v1/kv/${key}`, { method: "PUT", body: value });
  expect(res.status).toBe(200);
  const get = await fetch(`${s.url}/v1/kv/${key}`);
  await get.arrayBuffer();
  return Number(get.headers.get("x-consul-index"));
}

/** A blocking read, what the data is before it is held, and the change it must then answer with. */
interface Case {
  path: string;
  /** Served with ACLs on. */
  acl?: true;
  before(s: Served): Promise<void>;
  change(s: Served): Promise<void>;
  check(body: unknown): void;
}

const register = (s: Served, address: string, service = "web") =>
  fetch(`${s.url}/v1/catalog/register`, {
    method: "PUT",
    body: JSON.stringify({ Node: "n1", Address: address, Service: { Service: service, Port: 80 } }),
  }).then((res) => expect(res.status).toBe(200));

const serviceDefaults = (s: Served, protocol: string) =>
  fetch(`${s.url}/v1/config`, {
    method: "PUT",
    body: JSON.stringify({ Kind: "service-defaults", Name: "web", Protocol: protocol }),
  }).then((res) => expect(res.status).toBe(200));

const session = (s: Served, name: string) =>
  fetch(`${s.url}/v1/session/create`, {
    method: "PUT",
    body: JSON.stringify({ Node: "n1", Name: name, Checks: [] }),
  }).then((res) => expect(res.status).toBe(200));

/** Sends a coordinate update for n1 and waits until its batch is applied. */
async function coordinate(s: Served, height: number): Promise<void> {
  const res = await fetch(`${s.url}/v1/coordinate/update`, {
    method: "PUT",
    body: JSON.stringify({
      Node: "n1",
      Coord: { Vec: [0, 0, 0, 0, 0, 0, 0, 0], Error: 1.5, Adjustment: 0, Height: height },
    }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  const applied = () =>
    s.backend.store
      .view()
      .coordinates("n1")
      .value.some((e) => e.Coord.Height === height);
  await until(applied, `coordinate height ${height} is applied`);
}

/** Creates or updates the policy `name` (found by name to update it). */
async function policy(s: Served, name: string, description: string): Promise<void> {
  const existing = await fetch(`${s.url}/v1/acl/policy/name/${name}`);
  const id = existing.status === 200 ? ((await existing.json()) as { ID: string }).ID : undefined;
  if (id === undefined) await existing.arrayBuffer();
  const res = await fetch(`${s.url}/v1/acl/policy${id ? `/${id}` : ""}`, {
    method: "PUT",
    body: JSON.stringify({
      Name: name,
      Description: description,
      Rules: 'key_prefix "" { policy = "read" }',
    }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

const cases: Record<string, Case> = {
  "a KV read": {
    path: "/v1/kv/parked/a",
    before: (s) => put(s, "parked/a", "one").then(() => {}),
    change: (s) => put(s, "parked/a", "two").then(() => {}),
    check: (body) => {
      const [entry] = body as { Value: string }[];
      expect(Buffer.from(entry!.Value, "base64").toString()).toBe("two");
    },
  },
  "a health list read": {
    path: "/v1/health/service/web",
    before: (s) => register(s, "10.0.0.1"),
    change: (s) => register(s, "10.0.0.2"),
    check: (body) => expect((body as { Node: { Address: string } }[])[0]!.Node.Address).toBe("10.0.0.2"),
  },
  "the catalog's services": {
    path: "/v1/catalog/services",
    before: (s) => register(s, "10.0.0.1"),
    change: (s) => register(s, "10.0.0.1", "db"),
    check: (body) => expect(Object.keys(body as object).sort()).toEqual(["db", "web"]),
  },
  "a node's services": {
    path: "/v1/catalog/node-services/n1",
    before: (s) => register(s, "10.0.0.1"),
    change: (s) => register(s, "10.0.0.1", "db"),
    check: (body) =>
      expect((body as { Services: { Service: string }[] }).Services.map((x) => x.Service)).toEqual([
        "db",
        "web",
      ]),
  },
  "a config entry": {
    path: "/v1/config/service-defaults/web",
    before: (s) => serviceDefaults(s, "http"),
    change: (s) => serviceDefaults(s, "grpc"),
    check: (body) => expect((body as { Protocol: string }).Protocol).toBe("grpc"),
  },
  "a kind's config entries": {
    path: "/v1/config/service-defaults",
    before: (s) => serviceDefaults(s, "http"),
    change: (s) => serviceDefaults(s, "grpc"),
    check: (body) => expect((body as { Protocol: string }[]).map((e) => e.Protocol)).toEqual(["grpc"]),
  },
  "a compiled discovery chain": {
    path: "/v1/discovery-chain/web",
    before: (s) => serviceDefaults(s, "http"),
    change: (s) => serviceDefaults(s, "grpc"),
    check: (body) => expect((body as { Chain: { Protocol: string } }).Chain.Protocol).toBe("grpc"),
  },
  "the session list": {
    path: "/v1/session/list",
    before: (s) => register(s, "10.0.0.1").then(() => session(s, "one")),
    change: (s) => session(s, "two"),
    check: (body) => expect((body as { Name: string }[]).map((x) => x.Name).sort()).toEqual(["one", "two"]),
  },
  "a node's coordinates": {
    path: "/v1/coordinate/node/n1",
    before: (s) => register(s, "10.0.0.1").then(() => coordinate(s, 0.1)),
    change: (s) => coordinate(s, 0.2),
    check: (body) => expect((body as { Coord: { Height: number } }[])[0]!.Coord.Height).toBe(0.2),
  },
  "the ACL token list": {
    path: "/v1/acl/tokens",
    acl: true,
    before: async () => {},
    change: (s) =>
      fetch(`${s.url}/v1/acl/token`, {
        method: "PUT",
        body: JSON.stringify({ Description: "wakes" }),
      }).then((res) => expect(res.status).toBe(200)),
    check: (body) => expect((body as { Description: string }[]).map((t) => t.Description)).toContain("wakes"),
  },
  "an ACL policy": {
    path: "/v1/acl/policy/name/readers",
    acl: true,
    before: (s) => policy(s, "readers", "one"),
    change: (s) => policy(s, "readers", "two"),
    check: (body) => expect((body as { Description: string }).Description).toBe("two"),
  },
};

describe("parked blocking queries", () => {
  it.each(Object.keys(cases))(
    "%s keeps no Hono Context while it waits, and answers the change",
    async (name) => {
      const c = cases[name]!;
      const s = await serveApi(c.acl);
      await c.before(s);
      const first = await fetch(s.url + c.path);
      await first.arrayBuffer();
      const index = Number(first.headers.get("x-consul-index"));
      const others = s.backend.store.watches.waiting;
      const held = fetch(`${s.url}${c.path}?index=${index}&wait=30s`);
      await until(() => s.backend.store.watches.waiting === others + 1, "the query is held");
      const heldContext = s.contexts.at(-1)!;
      // Hono's part of the request has ended: its Context is garbage while the query still waits.
      await new Promise((r) => setTimeout(r, 10));
      collectGarbage();
      expect(heldContext.deref()).toBeUndefined();
      expect(s.backend.store.watches.waiting).toBe(others + 1);

      await c.change(s);
      const res = await held;
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(Number(res.headers.get("x-consul-index"))).toBeGreaterThan(index);
      c.check(await res.json());
    },
  );

  it("answer a config entry deleted while they wait with Consul's 404 and the read's index", async () => {
    const s = await serveApi();
    await serviceDefaults(s, "http");
    const first = await fetch(`${s.url}/v1/config/service-defaults/web`);
    await first.arrayBuffer();
    const index = Number(first.headers.get("x-consul-index"));
    const held = fetch(`${s.url}/v1/config/service-defaults/web?index=${index}&wait=30s`);
    await until(() => s.backend.store.watches.waiting === 1, "the query is held");
    const gone = await fetch(`${s.url}/v1/config/service-defaults/web`, { method: "DELETE" });
    expect(gone.status).toBe(200);
    const res = await held;
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('Config entry not found for "service-defaults" / "web"');
    expect(Number(res.headers.get("x-consul-index"))).toBeGreaterThan(index);
    expect(res.headers.get("x-consul-knownleader")).toBe("true");
  });

  it("never meet a HEAD, whose answer Hono copies from the GET's: HEAD is refused at once, as Consul does", async () => {
    const s = await serveApi();
    const index = await put(s, "parked/h", "one");
    const res = await fetch(`${s.url}/v1/kv/parked/h?index=${index}&wait=30s`, { method: "HEAD" });
    expect(res.status).toBe(405);
    expect(s.backend.store.watches.waiting).toBe(0);
  });

  it("answer a fault after parking as any request's, and log it", async () => {
    const s = await serveApi();
    const index = await put(s, "parked/b", "one");
    const held = fetch(`${s.url}/v1/kv/parked/b?index=${index}&wait=30s&consistent`);
    await until(() => s.backend.store.watches.waiting === 1, "the query is held");
    lines.length = 0;
    s.setReadsFail(true);
    await s.backend.apply({
      v: 1,
      type: "kv.set",
      ns: "default",
      key: "parked/b",
      value: Buffer.from("x"),
      flags: 0n,
    });
    const res = await held;
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await res.text()).toBe("No cluster leader");
    expect(lines.find((l) => l.msg === "no cluster leader")).toMatchObject({
      method: "GET",
      path: "/v1/kv/parked/b",
    });
  });

  it("log their request line with the status they answered once answered", async () => {
    const s = await serveApi();
    const index = await put(s, "parked/c", "one");
    lines.length = 0;
    const held = fetch(`${s.url}/v1/kv/parked/c?index=${index}&wait=30s`);
    await until(() => s.backend.store.watches.waiting === 1, "the query is held");
    await new Promise((r) => setTimeout(r, 20));
    expect(lines.filter((l) => l.msg === "request")).toEqual([]);
    await fetch(`${s.url}/v1/kv/parked/c`, { method: "DELETE" });
    expect((await held).status).toBe(404);
    await until(() => lines.some((l) => l.msg === "request" && l.method === "GET"), "the GET is logged");
    expect(lines.find((l) => l.msg === "request" && l.method === "GET")).toMatchObject({
      status: 404,
      url: `/v1/kv/parked/c?index=${index}&wait=30s`,
    });
  });
});
