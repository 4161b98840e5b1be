import { describe, expect, it } from "vitest";
import { isApplyError } from "../src/index.js";
import { Harness } from "./helpers.js";

function web(h: Harness, node: string, id: string, tags: string[] = []) {
  return h.registerNode(node, {
    Service: { ID: id, Service: "web", Tags: tags, Port: 80 },
    Checks: [
      { CheckID: `${id}-alive`, Name: "alive", ServiceID: id, Status: "passing" },
      { CheckID: "node-ok", Name: "node", Status: "passing" },
    ],
  });
}

describe("catalog register", () => {
  it("registers node, service and checks; reads join them", () => {
    const h = new Harness();
    expect(web(h, "n1", "web-1", ["v1"])).toBe(true);
    web(h, "n2", "web-2", ["v2"]);
    const v = h.store.view();
    expect(v.nodes().value.map((n) => n.Node)).toEqual(["n1", "n2"]);
    expect(v.services().value).toEqual({ web: ["v1", "v2"] });
    expect(v.serviceInstances("web").value.map((i) => `${i.node.Node}/${i.service.ID}`)).toEqual([
      "n1/web-1",
      "n2/web-2",
    ]);
    expect(v.serviceInstances("web", { tags: ["v2"] }).value.map((i) => i.service.ID)).toEqual(["web-2"]);
    expect(v.node("n1").value?.services.map((s) => s.ID)).toEqual(["web-1"]);
    expect(v.checksForNode("n1").value.map((c) => c.CheckID)).toEqual(["node-ok", "web-1-alive"]);
    expect(v.checksForService("web").value.map((c) => c.ServiceName)).toEqual(["web", "web"]);
    expect(v.serviceHealth("web").value[0]?.checks.map((c) => c.CheckID)).toEqual(["node-ok", "web-1-alive"]);
    expect(v.checksInState("passing").value).toHaveLength(4);
    expect(v.checksInState("critical").value).toHaveLength(0);
  });

  it("an identical re-registration changes no index", () => {
    const h = new Harness();
    web(h, "n1", "web-1");
    const before = h.store.view().node("n1").value;
    web(h, "n1", "web-1");
    const after = h.store.view().node("n1").value;
    expect(after?.node.ModifyIndex).toBe(before?.node.ModifyIndex);
    expect(after?.services[0]?.ModifyIndex).toBe(before?.services[0]?.ModifyIndex);
    expect(h.store.view().serviceInstances("web").index).toBe(1);
  });

  it("SkipNodeUpdate keeps an existing node's fields but still creates a missing node", () => {
    const h = new Harness();
    h.registerNode("n1", { Address: "1.1.1.1" });
    h.registerNode("n1", { Address: "2.2.2.2", SkipNodeUpdate: true });
    expect(h.store.view().node("n1").value?.node.Address).toBe("1.1.1.1");
    h.registerNode("n2", { Address: "3.3.3.3", SkipNodeUpdate: true });
    expect(h.store.view().node("n2").value?.node.Address).toBe("3.3.3.3");
  });

  it("a check on a missing service fails the whole registration", () => {
    const h = new Harness();
    const r = h.registerNode("n1", { Check: { CheckID: "c", ServiceID: "nope" } });
    expect(r).toMatchObject({ error: "Missing service registration" });
    expect(h.store.view().nodes().value).toEqual([]);
    expect(h.store.view().nodes().index).toBe(1);
  });

  it("checks default to critical and CheckID defaults to Name", () => {
    const h = new Harness();
    h.registerNode("n1", { Check: { Name: "mem" } });
    expect(h.store.view().checksForNode("n1").value[0]).toMatchObject({ CheckID: "mem", Status: "critical" });
  });

  it("refuses an ID already used by another node", () => {
    const h = new Harness();
    h.registerNode("n1", { ID: "aaaaaaaa-0000-0000-0000-000000000000" });
    expect(isApplyError(h.registerNode("n2", { ID: "aaaaaaaa-0000-0000-0000-000000000000" }))).toBe(true);
  });
});

describe("catalog deregister cascades", () => {
  it("service: removes it and its checks only", () => {
    const h = new Harness();
    web(h, "n1", "web-1");
    h.run("catalog.deregister", { node: "n1", serviceID: "web-1", now: h.now });
    const v = h.store.view();
    expect(v.serviceInstances("web").value).toEqual([]);
    expect(v.checksForNode("n1").value.map((c) => c.CheckID)).toEqual(["node-ok"]);
    expect(v.nodes().value).toHaveLength(1);
    expect(v.services().value).toEqual({});
  });

  it("check: removes that check", () => {
    const h = new Harness();
    web(h, "n1", "web-1");
    h.run("catalog.deregister", { node: "n1", checkID: "node-ok", now: h.now });
    expect(
      h.store
        .view()
        .checksForNode("n1")
        .value.map((c) => c.CheckID),
    ).toEqual(["web-1-alive"]);
  });

  it("node: removes node, services, checks and coordinates", () => {
    const h = new Harness();
    web(h, "n1", "web-1");
    web(h, "n2", "web-2");
    h.run("coordinate.batch-update", {
      updates: [{ Node: "n1", Coord: { Vec: [0.1, 0.2], Error: 1.5, Adjustment: 0, Height: 1e-5 } }],
    });
    expect(h.store.view().coordinates("n1").value).toHaveLength(1);
    h.run("catalog.deregister", { node: "n1", now: h.now });
    const v = h.store.view();
    expect(v.nodes().value.map((n) => n.Node)).toEqual(["n2"]);
    expect(v.checksForNode("n1").value).toEqual([]);
    expect(v.serviceInstances("web").value.map((i) => i.node.Node)).toEqual(["n2"]);
    expect(v.coordinates().value).toEqual([]);
    expect(v.serviceInstances("web").index).toBe(4);
  });
});

describe("lookups and namespaces", () => {
  it("finds a node by ID, also after it is renamed away", () => {
    const h = new Harness();
    const id = "aaaaaaaa-0000-0000-0000-000000000009";
    h.registerNode("n1", { ID: id });
    expect(h.store.view().node(id).value?.node.Node).toBe("n1");
    h.run("catalog.deregister", { node: "n1", now: h.now });
    expect(h.store.view().node(id).value).toBeUndefined();
    h.registerNode("n2", { ID: id });
    expect(h.store.view().node(id).value?.node.Node).toBe("n2");
  });

  it("lists Connect proxies and native instances for a service", () => {
    const h = new Harness();
    h.registerNode("n1", { Service: { ID: "web", Service: "web" } });
    h.registerNode("n1", {
      Service: {
        ID: "web-proxy",
        Service: "web-sidecar-proxy",
        Kind: "connect-proxy",
        Proxy: { DestinationServiceName: "web" },
      },
    });
    h.registerNode("n2", { Service: { ID: "web", Service: "web", Connect: { Native: true } } });
    const ids = h.store
      .view()
      .connectInstances("web")
      .value.map((i) => `${i.node.Node}/${i.service.ID}`);
    expect(ids).toEqual(["n2/web", "n1/web-proxy"]);
  });

  it("keeps checks and services of different namespaces apart", () => {
    const h = new Harness().namespaces("team");
    h.registerNode("n1", {
      Service: { ID: "s", Service: "api", Namespace: "team" },
      Checks: [
        { CheckID: "c", Status: "passing", Namespace: "team", ServiceID: "s" },
        { CheckID: "c", Status: "warning" },
      ],
    });
    const v = h.store.view();
    expect(v.checksForNode("n1").value.map((c) => `${c.Namespace}/${c.Status}`)).toEqual([
      "default/warning",
      "team/passing",
    ]);
    expect(v.serviceInstances("api").value).toEqual([]);
    expect(v.serviceInstances("api", { ns: "team" }).value).toHaveLength(1);
    expect(v.serviceInstances("api", { ns: "*" }).value).toHaveLength(1);
    h.run("catalog.deregister", { node: "n1", checkID: "c", ns: "team", now: h.now });
    expect(
      h.store
        .view()
        .checksForNode("n1")
        .value.map((c) => c.Namespace),
    ).toEqual(["default"]);
  });
});

describe("coordinates", () => {
  it("skips unknown nodes and keeps one entry per node and segment", () => {
    const h = new Harness();
    h.registerNode("n1");
    const coord = { Vec: [1, 2, 3], Error: 0.5, Adjustment: 0.1, Height: 0.01 };
    h.run("coordinate.batch-update", {
      updates: [
        { Node: "n1", Coord: coord },
        { Node: "n1", Segment: "alpha", Coord: coord },
        { Node: "ghost", Coord: coord },
      ],
    });
    const v = h.store.view();
    expect(v.coordinates().value.map((c) => `${c.Node}/${c.Segment}`)).toEqual(["n1/", "n1/alpha"]);
    expect(v.coordinates().index).toBe(2);
  });
});

describe("health reads after a service is renamed", () => {
  it("a check deleted after its service was renamed leaves the new name's health", () => {
    const h = new Harness();
    h.registerNode("n1", {
      Service: { ID: "s1", Service: "web" },
      Check: { CheckID: "c1", ServiceID: "s1", Status: "critical" },
    });
    h.registerNode("n1", { SkipNodeUpdate: true, Service: { ID: "s1", Service: "db" } });
    const before = h.store.view().serviceHealth("db");
    expect(before.value[0]?.checks.map((c) => c.CheckID)).toEqual(["c1"]);
    h.run("catalog.deregister", { node: "n1", checkID: "c1", now: h.now });
    const after = h.store.view().serviceHealth("db");
    expect(after.index).toBeGreaterThan(before.index);
    expect(after.value[0]?.checks).toEqual([]);
  });
});
