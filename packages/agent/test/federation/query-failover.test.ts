// Three datacenters, WAN-joined on loopback: a prepared query with no healthy local instance fails over to
// the NearestN datacenters by WAN round-trip time, then its Datacenters list, each once, and says which
// datacenter answered and how many it asked. Explain shows that plan.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentScratch, type Federation, startFederation, waitFor } from "../../../../scripts/lib/index.js";
import { call, ok } from "./harness.js";

const scratch = new AgentScratch();
let fed: Federation;

beforeAll(async () => {
  fed = await startFederation(scratch.root, {
    datacenters: ["dc1", "dc2", "dc3"],
    servers: 1,
    clients: false,
  });
}, 180_000);

afterAll(async () => {
  await fed?.stop();
  await scratch.dispose();
});

const dc1 = () => fed.dc("dc1").servers[0]!;

interface Execution {
  Service: string;
  Nodes: { Node: { Node: string; Datacenter: string } }[];
  Datacenter: string;
  Failovers: number;
}

/** Registers `service` on a node of `dc` (through dc1, forwarded), healthy or not. */
async function register(dc: string, node: string, service: string, status: "passing" | "critical") {
  await ok(dc1(), `/v1/catalog/register?dc=${dc}`, "PUT", {
    Node: node,
    Address: "10.1.0.1",
    Service: { Service: service, Port: 80 },
    Check: { CheckID: `${service}-check`, Name: "up", Status: status, ServiceID: service },
  });
}

async function makeQuery(
  name: string,
  failover: { NearestN?: number; Datacenters?: string[] },
  service = name,
) {
  const { ID } = await ok<{ ID: string }>(dc1(), "/v1/query", "POST", {
    Name: name,
    Service: { Service: service, Failover: failover },
  });
  return ID;
}

describe("prepared query failover across datacenters", { timeout: 120_000 }, () => {
  /** The first test's query: db in the datacenter nearest by RTT. */
  let nearestQuery = "";

  it("tries the nearest datacenters by RTT first, then the fixed list, each once", async () => {
    await register("dc2", "n2", "db", "passing");
    await register("dc3", "n3", "db", "passing");
    // dc1's view of the WAN, nearest first (itself first): the one ordering failover uses. It moves with
    // every WAN probe (dc2 and dc3 are equally near on loopback), so the checks below hold for one order
    // that the datacenter list showed both before and after them.
    let attempt = 0;
    const { first, id, nearest, farthest, explained, out } = await waitFor(
      "an RTT order of the datacenters unchanged across explain and execute",
      async () => {
        const order = await ok<string[]>(dc1(), "/v1/catalog/datacenters");
        const [nearest, farthest] = order.slice(1) as [string, string];
        const failover = { NearestN: 1, Datacenters: [farthest, nearest] };
        const id = await makeQuery(`db-nearest-${attempt++}`, failover, "db");
        const explained = await ok<{ FailoverDatacenters: string[] }>(dc1(), `/v1/query/${id}/explain`);
        const out = await ok<Execution>(dc1(), `/v1/query/${id}/execute`);
        const after = await ok<string[]>(dc1(), "/v1/catalog/datacenters");
        return after.join() === order.join()
          ? { first: order[0], id, nearest, farthest, explained, out }
          : undefined;
      },
    );
    expect(first).toBe("dc1");
    expect(explained.FailoverDatacenters).toEqual([nearest, farthest]);
    expect(out.Datacenter).toBe(nearest);
    expect(out.Failovers).toBe(1);
    expect(out.Nodes.map((n) => n.Node.Node)).toEqual([nearest === "dc2" ? "n2" : "n3"]);
    expect(out.Nodes[0]?.Node.Datacenter).toBe(nearest);
    nearestQuery = id;
  });

  it("goes down the Datacenters list past datacenters with no healthy instance", async () => {
    await register("dc2", "n2", "cache", "critical");
    await register("dc3", "n3", "cache", "passing");
    const id = await makeQuery("cache", { Datacenters: ["dc2", "dc3", "dc2", "nowhere"] });
    const explained = await ok<{ FailoverDatacenters: string[] }>(dc1(), `/v1/query/${id}/explain`);
    // Each once; an unknown datacenter is left out.
    expect(explained.FailoverDatacenters).toEqual(["dc2", "dc3"]);
    const out = await ok<Execution>(dc1(), `/v1/query/cache/execute`);
    expect(out).toMatchObject({ Datacenter: "dc3", Failovers: 2 });
    expect(out.Nodes.map((n) => n.Node.Node)).toEqual(["n3"]);
  });

  it("answers locally with Failovers 0 while a local instance is healthy; nothing anywhere counts every try", async () => {
    await register("dc1", "n1", "cache", "passing");
    const here = await ok<Execution>(dc1(), "/v1/query/cache/execute");
    expect(here).toMatchObject({ Datacenter: "dc1", Failovers: 0 });
    expect(here.Nodes.map((n) => n.Node.Node)).toEqual(["n1"]);

    const id = await makeQuery("nothing", { NearestN: 2 });
    const out = await ok<Execution>(dc1(), `/v1/query/${id}/execute`);
    expect(out.Nodes).toEqual([]);
    expect(out.Failovers).toBe(2);
    // near=_agent is this agent: it sorts local answers and is not sent along.
    const near = await call(dc1(), `/v1/query/${nearestQuery}/execute?near=_agent`);
    expect(near.status).toBe(200);
    expect((near.json as Execution).Failovers).toBe(1);
  });
});
