// /v1/event over the real API on loopback, with two agents' event logs wired to each other as gossip does.
import type { AddressInfo } from "node:net";
import {
  AclEnforcer,
  createApi,
  eventIndex,
  GLOBAL_MANAGEMENT_POLICY,
  LocalBackend,
  managementToken,
} from "@cairn/api";
import { ANONYMOUS_TOKEN_ACCESSOR, ANONYMOUS_TOKEN_SECRET, COMMAND_VERSION } from "@cairn/fsm";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventLog } from "../../src/events/event-log.js";
import type { LocalService } from "../../src/events/filters.js";

const ROOT = "11111111-2222-3333-4444-555555555555";

interface Agent {
  url: string;
  log: EventLog;
  close(): Promise<void>;
}

async function startAgent(
  nodeName: string,
  services: LocalService[],
  broadcast: (m: unknown) => void,
  acl = false,
): Promise<Agent> {
  const backend = new LocalBackend();
  const log = new EventLog({ nodeName, localServices: () => services, broadcast });
  let enforcer: AclEnforcer | undefined;
  if (acl) {
    await backend.apply({
      v: COMMAND_VERSION,
      type: "acl.init",
      policy: GLOBAL_MANAGEMENT_POLICY,
      anonymous: {
        ...managementToken(ANONYMOUS_TOKEN_ACCESSOR, ANONYMOUS_TOKEN_SECRET, "Anonymous Token"),
        Policies: [],
      },
      initialManagement: managementToken(
        "00000000-0000-0000-0000-00000000000a",
        ROOT,
        "Initial Management Token",
      ),
      now: Date.now(),
    });
    enforcer = new AclEnforcer({ store: backend.store, datacenter: "dc1", defaultPolicy: "deny" });
  }
  const app = createApi({
    backend,
    nodeName,
    datacenter: "dc1",
    events: log,
    ...(enforcer ? { acl: enforcer } : {}),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

interface EventJson {
  ID: string;
  Name: string;
  Payload: string | null;
  NodeFilter: string;
  ServiceFilter: string;
  TagFilter: string;
  Version: number;
  LTime: number;
}

let web: Agent;
let db: Agent;

beforeAll(async () => {
  // Gossip delivers asynchronously and never back to the sender.
  web = await startAgent("web-1", [{ Service: "web", Tags: ["blue"] }], (m) =>
    setImmediate(() => db.log.receive(m)),
  );
  db = await startAgent("db-1", [{ Service: "db", Tags: ["primary"] }], (m) =>
    setImmediate(() => web.log.receive(m)),
  );
});

afterAll(async () => {
  await web.close();
  await db.close();
});

async function list(agent: Agent, query = "", token?: string) {
  const res = await fetch(`${agent.url}/v1/event/list${query}`, {
    headers: token ? { "X-Consul-Token": token } : {},
  });
  return { res, body: (await res.json()) as EventJson[], index: res.headers.get("X-Consul-Index") };
}

async function fire(agent: Agent, path: string, body?: string, token?: string) {
  return fetch(`${agent.url}/v1/event/fire/${path}`, {
    method: "PUT",
    body,
    headers: token ? { "X-Consul-Token": token } : {},
  });
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe("/v1/event", () => {
  it("lists nothing with index 1 before any event", async () => {
    const { res, body, index } = await list(web);
    expect(res.status).toBe(200);
    expect(body).toEqual([]);
    expect(index).toBe("1");
  });

  it("fires an event that every agent lists, answered as Consul answers", async () => {
    const res = await fire(web, "deploy", "v1.2.3");
    expect(res.status).toBe(200);
    const event = (await res.json()) as EventJson;
    expect(event).toEqual({
      ID: expect.stringMatching(/^[0-9a-f-]{36}$/),
      Name: "deploy",
      Payload: Buffer.from("v1.2.3").toString("base64"),
      NodeFilter: "",
      ServiceFilter: "",
      TagFilter: "",
      Version: 1,
      LTime: 0,
    });
    await settle();
    for (const agent of [web, db]) {
      const { body, index } = await list(agent);
      expect(body.at(-1)).toMatchObject({ ID: event.ID, Name: "deploy", Payload: event.Payload });
      expect(index).toBe(eventIndex(event.ID).toString());
    }
  });

  it("sends no payload as null and applies the filters on each agent", async () => {
    const none = (await (await fire(web, "nopayload")).json()) as EventJson;
    expect(none.Payload).toBeNull();
    await fire(web, "only-db?node=^db");
    await fire(db, "only-blue?service=web&tag=blu");
    await settle();
    const names = async (a: Agent) => (await list(a)).body.map((e) => e.Name);
    expect(await names(web)).toEqual(["deploy", "nopayload", "only-blue"]);
    expect(await names(db)).toEqual(["deploy", "nopayload", "only-db"]);
    const { body } = await list(db, "?name=only-db");
    expect(body.map((e) => e.NodeFilter)).toEqual(["^db"]);
  });

  it("refuses a missing name (400) and bad filters or sizes (500), as Consul", async () => {
    const missing = await fire(web, "");
    expect([missing.status, await missing.text()]).toEqual([400, "Missing name"]);
    const tag = await fire(web, "x?tag=a");
    expect([tag.status, await tag.text()]).toEqual([500, "Cannot provide tag filter without service filter"]);
    const bad = await fire(web, "x?node=(");
    expect(bad.status).toBe(500);
    expect(await bad.text()).toMatch(/^Invalid node filter: /);
    const big = await fire(web, "x", "p".repeat(1000));
    expect([big.status, await big.text()]).toEqual([
      500,
      "user event exceeds configured limit of 512 bytes before encoding",
    ]);
    const get = await fetch(`${web.url}/v1/event/fire/x`);
    expect(get.status).toBe(405);
  });

  it("blocks a list until the last event's index changes, and for the wait time otherwise", async () => {
    const before = await list(db, "?name=wake");
    expect(before.index).toBe("1");
    const started = Date.now();
    const held = list(db, `?name=wake&index=${before.index}&wait=5s`);
    await new Promise((r) => setTimeout(r, 100));
    const fired = (await (await fire(web, "wake", "now")).json()) as EventJson;
    const after = await held;
    expect(Date.now() - started).toBeLessThan(4000);
    expect(after.body.map((e) => e.ID)).toEqual([fired.ID]);
    expect(after.index).toBe(eventIndex(fired.ID).toString());

    const t0 = Date.now();
    const timedOut = await list(db, `?name=wake&index=${after.index}&wait=300ms`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(timedOut.index).toBe(after.index);
    expect(timedOut.body).toHaveLength(1);
  });
});

describe("/v1/event with ACLs", () => {
  let secured: Agent;
  let deployOnly: string;

  beforeAll(async () => {
    secured = await startAgent("acl-1", [], () => {}, true);
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${secured.url}${path}`, {
        method: "PUT",
        headers: { "X-Consul-Token": ROOT },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, string>;
    };
    const policy = await call("/v1/acl/policy", {
      Name: "deploy",
      Rules: 'event "deploy" { policy = "write" }',
    });
    deployOnly = (await call("/v1/acl/token", { Policies: [{ ID: policy.ID }] })).SecretID ?? "";
  });

  afterAll(() => secured.close());

  it("needs event:write to fire and filters the list by event:read", async () => {
    expect((await fire(secured, "deploy", "x", deployOnly)).status).toBe(200);
    const denied = await fire(secured, "restart", "x", deployOnly);
    expect([denied.status, await denied.text()]).toEqual([403, "Permission denied"]);
    expect((await fire(secured, "restart", "x", ROOT)).status).toBe(200);

    const mine = await list(secured, "", deployOnly);
    expect(mine.body.map((e) => e.Name)).toEqual(["deploy"]);
    expect(mine.res.headers.get("X-Consul-Results-Filtered-By-ACLs")).toBe("true");
    const all = await list(secured, "", ROOT);
    expect(all.body.map((e) => e.Name)).toEqual(["deploy", "restart"]);
    expect(all.res.headers.get("X-Consul-Results-Filtered-By-ACLs")).toBeNull();
    const anonymous = await list(secured);
    expect(anonymous.body).toEqual([]);
    expect(anonymous.res.headers.get("X-Consul-Results-Filtered-By-ACLs")).toBeNull();
  });
});
