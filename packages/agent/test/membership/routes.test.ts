import { type Authorizer, createApi, LocalBackend, membershipRoutes } from "@cairn/api";
import { afterEach, describe, expect, it } from "vitest";
import { type AgentMembership, membershipBackend } from "../../src/membership/index.js";
import { startMember, statusOf, stopAll, until } from "./harness.js";

afterEach(stopAll);

/** Tokens: "reader" reads nodes a* only and writes nothing; "operator" may force-leave; "" may do anything. */
const authorizer: Authorizer = {
  authorize: (token, _ns, type, name, access) => {
    if (token === "") return "allow";
    if (token === "reader")
      return type === "node" && access === "read" && name.startsWith("a") ? "allow" : "deny";
    if (token === "operator") return type === "operator" ? "allow" : "deny";
    return "deny";
  },
};

function api(membership: AgentMembership, onShutdown: () => void = () => {}) {
  const app = createApi({
    backend: new LocalBackend(),
    nodeName: "a",
    datacenter: "dc1",
    datacenters: () => membership.datacenters(),
    coordinateDatacenters: () => membership.datacenterCoordinates(),
  });
  app.route(
    "/v1/agent",
    membershipRoutes(membershipBackend(membership, onShutdown), { nodeName: "a", authorizer }),
  );
  return (method: string, path: string, token = "") =>
    app.request(path, { method, headers: token ? { "X-Consul-Token": token } : {} });
}

describe("/v1/agent membership endpoints", () => {
  it("lists members (filtered by node:read), joins, and answers bad input with 400", async () => {
    const a = await startMember("a", { serverPort: 8300 });
    const b = await startMember("b");
    const req = api(a);

    const join = await req("PUT", `/v1/agent/join/${b.lanAddress}`);
    expect(join.status).toBe(200);
    await until(() => statusOf(a, "b") === 1);
    const all = (await (await req("GET", "/v1/agent/members")).json()) as { Name: string; Status: number }[];
    expect(all.map((m) => [m.Name, m.Status])).toEqual([
      ["a", 1],
      ["b", 1],
    ]);
    const filteredResponse = await req("GET", "/v1/agent/members", "reader");
    expect(filteredResponse.headers.get("X-Consul-Results-Filtered-By-ACLs")).toBe("true");
    const filtered = (await filteredResponse.json()) as { Name: string }[];
    expect(filtered.map((m) => m.Name)).toEqual(["a"]);
    const unfiltered = await req("GET", "/v1/agent/members");
    expect(unfiltered.headers.get("X-Consul-Results-Filtered-By-ACLs")).toBeNull();
    const wan = (await (await req("GET", "/v1/agent/members?wan=1")).json()) as { Name: string }[];
    expect(wan.map((m) => m.Name)).toEqual(["a.dc1"]);
    expect((await req("GET", "/v1/agent/members?segment=_all")).status).toBe(200);

    const segment = await req("GET", "/v1/agent/members?segment=alpha");
    expect(segment.status).toBe(400);
    expect(await segment.text()).toMatch(/segments are not supported/);
    const wanSegment = await req("GET", "/v1/agent/members?wan=1&segment=alpha");
    expect(await wanSegment.text()).toBe("Cannot provide a segment with wan=true");
    const bad = await req("PUT", "/v1/agent/join/not%20an%20address");
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/invalid address/);
    const silent = await req("PUT", "/v1/agent/join/127.0.0.1:1");
    expect(silent.status).toBe(400);
    expect(await silent.text()).toMatch(/Failed to join 127\.0\.0\.1:1/);
    expect((await req("PUT", "/v1/agent/join/")).status).toBe(400);
    expect((await req("GET", "/v1/agent/join/x")).status).toBe(405);
    expect((await req("PUT", `/v1/agent/join/${b.lanAddress}`, "reader")).status).toBe(403);

    // A client has no WAN pool: its WAN join is refused with Consul's reason.
    const reqB = api(b);
    const wanJoin = await reqB("PUT", `/v1/agent/join/${a.wanAddress}?wan=1`);
    expect(wanJoin.status).toBe(400);
    expect(await wanJoin.text()).toMatch(/Must be a server/);
  });

  it("force-leave needs operator:write, refuses unknown nodes, and prunes", async () => {
    const a = await startMember("a");
    const b = await startMember("b");
    await b.join([a.lanAddress], { wan: false });
    await until(() => statusOf(a, "b") === 1);
    await b.close();
    await until(() => statusOf(a, "b") === 4);
    const req = api(a);

    expect((await req("PUT", "/v1/agent/force-leave/b", "reader")).status).toBe(403);
    const unknown = await req("PUT", "/v1/agent/force-leave/nobody", "operator");
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe("agent: No node found with name 'nobody'");
    expect((await req("PUT", "/v1/agent/force-leave/", "operator")).status).toBe(400);
    expect((await req("PUT", "/v1/agent/force-leave/b", "operator")).status).toBe(200);
    expect(statusOf(a, "b")).toBe(3);
    expect((await req("PUT", "/v1/agent/force-leave/b?prune", "operator")).status).toBe(200);
    expect(statusOf(a, "b")).toBeUndefined();
  });

  it("force-leave of a live node answers 200 as Consul does; the node refutes and stays alive", async () => {
    const a = await startMember("a");
    const b = await startMember("b");
    await b.join([a.lanAddress], { wan: false });
    await until(() => statusOf(a, "b") === 1 && statusOf(b, "a") === 1);
    const changes: string[] = [];
    a.onChange((m) => changes.push(`${m.name}:${m.status}`));
    const req = api(a);
    expect((await req("PUT", "/v1/agent/force-leave/b", "operator")).status).toBe(200);
    // The intent went to b, which refutes it (the gossip tests see its newer incarnation): nobody saw it leave.
    expect(statusOf(a, "b")).toBe(1);
    expect(changes.filter((c) => c.startsWith("b:") && !c.endsWith("alive"))).toEqual([]);
  });

  it("leave answers after the graceful leave, then shuts the agent down; others see left", async () => {
    const a = await startMember("a");
    const b = await startMember("b");
    await b.join([a.lanAddress], { wan: false });
    await until(() => statusOf(b, "a") === 1);
    let shutdowns = 0;
    const req = api(a, () => shutdowns++);
    expect((await req("PUT", "/v1/agent/leave", "reader")).status).toBe(403);
    const leave = await req("PUT", "/v1/agent/leave");
    expect(leave.status).toBe(200);
    await until(() => shutdowns === 1 && statusOf(b, "a") === 3);
  });

  it("catalog and coordinate datacenters come from the WAN pool", async () => {
    const a = await startMember("a", { serverPort: 8300 });
    const b = await startMember("b", { serverPort: 8300, config: { datacenter: "dc2" } });
    await b.join([a.wanAddress ?? ""], { wan: true });
    await until(() => a.datacenterCoordinates()?.every((d) => d.Coordinates.length === 1) === true);
    const req = api(a);
    expect(await (await req("GET", "/v1/catalog/datacenters")).json()).toEqual(["dc1", "dc2"]);
    const maps = (await (await req("GET", "/v1/coordinate/datacenters")).json()) as {
      Datacenter: string;
      AreaID: string;
      Coordinates: { Node: string; Coord: { Vec: number[] } }[];
    }[];
    expect(maps.map((m) => [m.Datacenter, m.AreaID, m.Coordinates.map((c) => c.Node)])).toEqual([
      ["dc1", "WAN", ["a"]],
      ["dc2", "WAN", ["b"]],
    ]);
    expect(maps[0]?.Coordinates[0]?.Coord.Vec).toHaveLength(8);
  });
});
