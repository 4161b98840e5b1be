// The pure resolver over an in-memory view: name forms, only_passing, TTL wildcards, the
// alt domain and other datacenters.
import { describe, expect, it } from "vitest";
import {
  parseName,
  type Resolution,
  type ResolverConfig,
  resolve,
  reverseToIp,
  serviceTtlMs,
} from "../src/index.js";
import { instance, memoryView, node } from "./memory-view.js";

const nodes = [node("a", "10.0.0.1"), node("b", "10.0.0.2"), node("c", "fd00::3")];
const far = { ...node("z", "10.9.0.1"), datacenter: "dc2" };
const view = memoryView({
  nodes: [...nodes, far],
  services: [
    instance("web", nodes[0]!, { status: "passing" }),
    instance("web", nodes[1]!, { status: "warning" }),
    instance("web", nodes[2]!, { status: "passing" }),
    instance("web", far, { status: "passing" }),
    instance("web", far, { status: "critical", port: 81 }),
  ],
});
const config: ResolverConfig = {
  domain: "consul.",
  altDomain: "cairn.test.",
  datacenter: "dc1",
  nodeTtlMs: 0,
  serviceTtlMs: { "*": 1_000, "we*": 7_000, webx: 9_000 },
  onlyPassing: false,
  aRecordLimit: 0,
};
const ctx = { view, now: () => 1_700_000_000_000, random: Math.random };
const ask = (name: string, type = "A", c: Partial<ResolverConfig> = {}) =>
  resolve({ name, type, class: "IN" }, { ...config, ...c }, ctx);
const data = (r: Resolution) => r.answers.map((a) => String("data" in a ? a.data : "")).sort();

describe("names", () => {
  it("parses every form", () => {
    expect(parseName("V1.Web.Service.DC1.consul.", "consul.")).toMatchObject({
      datacenter: "dc1",
      lookup: { kind: "service", service: "web", tag: "v1" },
    });
    expect(parseName("_web._tcp.service.consul", "consul.").lookup).toEqual({
      kind: "service",
      service: "web",
      tag: undefined,
    });
    expect(parseName("web.service.dc1.dc.consul", "consul.").datacenter).toBe("dc1");
    expect(parseName("a.b.c.service.consul", "consul.").lookup.kind).toBe("invalid");
    expect(parseName("0a000001.addr.dc1.consul", "consul.").lookup).toEqual({ kind: "addr", ip: "10.0.0.1" });
    expect(reverseToIp("4.3.2.1.in-addr.arpa.")).toBe("1.2.3.4");
  });

  it("matches service TTLs exactly, then by the longest prefix wildcard", () => {
    expect(serviceTtlMs(config.serviceTtlMs, "webx")).toBe(9_000);
    expect(serviceTtlMs(config.serviceTtlMs, "web")).toBe(7_000);
    expect(serviceTtlMs(config.serviceTtlMs, "db")).toBe(1_000);
    expect(serviceTtlMs({}, "db")).toBe(0);
  });
});

describe("resolve", () => {
  it("gives A for IPv4 and AAAA for IPv6 instances, warning ones unless only_passing", async () => {
    expect(data(await ask("web.service.consul"))).toEqual(["10.0.0.1", "10.0.0.2"]);
    expect(data(await ask("web.service.consul", "AAAA"))).toEqual(["fd00::3"]);
    expect(data(await ask("web.service.consul", "A", { onlyPassing: true }))).toEqual(["10.0.0.1"]);
    expect((await ask("web.service.consul")).answers[0]).toMatchObject({ ttl: 7 });
  });

  it("answers under the alt domain with targets in it", async () => {
    const r = await ask("web.service.cairn.test", "SRV");
    expect(r.answers.map((a) => (a as { data: { target: string } }).data.target).sort()).toEqual([
      "a.node.dc1.cairn.test",
      "b.node.dc1.cairn.test",
      "c.node.dc1.cairn.test",
    ]);
  });

  it("answers PTR for a known node's IPv4 and IPv6 addresses", async () => {
    const v4 = await ask("2.0.0.10.in-addr.arpa", "PTR");
    expect(v4.answers.map((a) => ("data" in a ? a.data : undefined))).toEqual(["b.node.dc1.consul"]);
    const v6 = await ask(`3.${"0.".repeat(29)}d.f.ip6.arpa`, "PTR"); // fd00::3
    expect(v6.answers.map((a) => ("data" in a ? a.data : undefined))).toEqual(["c.node.dc1.consul"]);
  });

  it("answers another datacenter's names from the view's records of it, health-filtered, with local TTLs", async () => {
    const a = await ask("web.service.dc2.consul");
    expect(data(a)).toEqual(["10.9.0.1"]);
    expect(a.answers.map((r) => ("ttl" in r ? r.ttl : undefined))).toEqual([7]);
    const srv = await ask("_web._tcp.service.dc2.consul", "SRV");
    expect(srv.answers.map((r) => ("data" in r ? r.data : undefined))).toEqual([
      { priority: 1, weight: 1, port: 80, target: "z.node.dc2.consul" },
    ]);
    expect(data(await ask("z.node.dc2.consul"))).toEqual(["10.9.0.1"]);
    // The local datacenter's view has no node z.
    expect((await ask("z.node.consul")).rcode).toBe("NXDOMAIN");
  });

  it("is NXDOMAIN for a datacenter the view does not know and hands outside names to the recursors", async () => {
    expect((await ask("web.service.dc9.consul")).rcode).toBe("NXDOMAIN");
    expect((await ask("example.org")).recurse).toBe(true);
  });
});
