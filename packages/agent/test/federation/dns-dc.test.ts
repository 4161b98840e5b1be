// DNS names of another datacenter (`<name>.service.dc2.consul`, `.node.dc2`, `.query.dc2`) asked with `dig`
// from dc1's agents, answered from dc2 through the `?dc=` forwarding; an unknown datacenter is NXDOMAIN and
// one that cannot be reached SERVFAIL, promptly.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AgentScratch,
  type Federation,
  freePorts,
  pause,
  resume,
  startFederation,
  stop,
  waitFor,
} from "../../../../scripts/lib/index.js";
import { dig } from "../../../dns/test/dig.js";
import { ok } from "./harness.js";

const scratch = new AgentScratch();
let fed: Federation;
const dnsPorts = new Map<string, number>();

beforeAll(async () => {
  const [s1, c1, s2, c2] = await freePorts(4);
  dnsPorts.set("dc1-server", s1!);
  dnsPorts.set("dc1-client", c1!);
  dnsPorts.set("dc2-server", s2!);
  dnsPorts.set("dc2-client", c2!);
  fed = await startFederation(scratch.root, {
    datacenters: ["dc1", "dc2"],
    servers: 1,
    flags: (dc, role) => ["-dns-port", String(dnsPorts.get(`${dc}-${role}`))],
  });
  const dc2 = fed.dc("dc2").servers[0]!;
  const register = (node: string, address: string, status: string, tags: string[]) =>
    ok(dc2, "/v1/catalog/register", "PUT", {
      Node: node,
      Address: address,
      NodeMeta: { rack: "r2" },
      Service: { ID: "web", Service: "web", Port: 8080, Tags: tags },
      Checks: [{ CheckID: "web-check", Name: "web-check", Status: status, ServiceID: "web" }],
    });
  await register("far-1", "10.2.0.1", "passing", ["v1"]);
  await register("far-2", "10.2.0.2", "critical", ["v1"]);
  await register("far-3", "10.2.0.3", "passing", ["v2"]);
  await ok(dc2, "/v1/query", "POST", { Name: "far-web", Service: { Service: "web" }, DNS: { TTL: "7s" } });
}, 180_000);

afterAll(async () => {
  await fed?.stop();
  await scratch.dispose();
});

/** The dc1 client agent's DNS port: its questions go through its server, which forwards to dc2. */
const client1 = () => dnsPorts.get("dc1-client")!;
const server1 = () => dnsPorts.get("dc1-server")!;

describe("DNS names of another datacenter", { timeout: 120_000 }, () => {
  it("answers A for a dc2 service's healthy instances, asked from dc1's client agent and server", async () => {
    for (const port of [client1(), server1()]) {
      const a = await dig(port, "web.service.dc2.consul");
      expect(a.status).toBe("NOERROR");
      expect(a.answer.map((r) => r.data).sort()).toEqual(["10.2.0.1", "10.2.0.3"]);
      expect(a.answer.every((r) => r.type === "A" && r.name === "web.service.dc2.consul.")).toBe(true);
    }
    // Tag filtering, in both name forms, and the newer `<dc>.dc` form.
    expect((await dig(client1(), "v2.web.service.dc2.consul")).answer.map((r) => r.data)).toEqual([
      "10.2.0.3",
    ]);
    expect((await dig(client1(), "web.service.dc2.dc.consul")).answer).toHaveLength(2);
  });

  it("answers SRV with dc2 node targets that resolve, and RFC 2782 names", async () => {
    const srv = await dig(client1(), "_web._v1.service.dc2.consul", "SRV");
    expect(srv.status).toBe("NOERROR");
    expect(srv.answer.map((r) => r.data)).toEqual(["1 1 8080 far-1.node.dc2.consul."]);
    expect(srv.additional).toContainEqual(
      expect.objectContaining({ name: "far-1.node.dc2.consul.", type: "A", data: "10.2.0.1" }),
    );
    const all = await dig(client1(), "web.service.dc2.consul", "SRV");
    expect(all.answer.map((r) => r.data).sort()).toEqual([
      "1 1 8080 far-1.node.dc2.consul.",
      "1 1 8080 far-3.node.dc2.consul.",
    ]);
    // The target is itself a dc2 name dc1 answers.
    const target = await dig(client1(), "far-1.node.dc2.consul");
    expect(target.answer).toEqual([{ name: "far-1.node.dc2.consul.", ttl: 0, type: "A", data: "10.2.0.1" }]);
    expect((await dig(client1(), "far-1.node.dc2.consul", "TXT")).answer.map((r) => r.data)).toEqual([
      '"rack=r2"',
    ]);
  });

  it("runs a dc2 prepared query with its DNS TTL", async () => {
    const q = await dig(client1(), "far-web.query.dc2.consul");
    expect(q.status).toBe("NOERROR");
    expect(q.answer.map((r) => r.data).sort()).toEqual(["10.2.0.1", "10.2.0.3"]);
    expect(q.answer.every((r) => r.ttl === 7)).toBe(true);
  });

  it("is NXDOMAIN for a datacenter nobody knows and for names dc2 does not have", async () => {
    for (const name of [
      "web.service.dc9.consul",
      "far-1.node.dc9.consul",
      "far-web.query.dc9.consul",
      "nope.service.dc2.consul",
      "nope.node.dc2.consul",
      "nope.query.dc2.consul",
    ]) {
      const r = await dig(client1(), name);
      expect(r.status, name).toBe("NXDOMAIN");
      expect(r.authority[0]?.type, name).toBe("SOA");
    }
    // dc1's own names are not dc2's.
    expect((await dig(client1(), "web.service.dc1.consul")).status).toBe("NXDOMAIN");
  });

  it("answers SERVFAIL within a few seconds when dc2 does not answer, and answers again once it does", async () => {
    const dc2 = fed.dc("dc2").servers[0]!.process;
    // Frozen, not gone: its connections stay open and silent, so only the DNS deadline ends the wait.
    pause(dc2);
    try {
      const started = performance.now();
      const r = await dig(client1(), "silent.service.dc2.consul");
      expect(r.status).toBe("SERVFAIL");
      // The DNS deadline for another datacenter (3 s) ended it, not the 10 s forwarding deadline or dig's own.
      expect(performance.now() - started).toBeLessThan(9_000);
    } finally {
      resume(dc2);
    }
    await waitFor("dc2 answering again", async () => {
      const r = await dig(client1(), "far-1.node.dc2.consul");
      return r.status === "NOERROR" ? r : undefined;
    });
  });

  it("answers SERVFAIL within a few seconds when dc2 cannot be reached", async () => {
    await stop(fed.dc("dc2").servers[0]!.process);
    // A name not asked before, so no answer kept from before the outage can stand in for it.
    let n = 0;
    await waitFor(
      "SERVFAIL for a dc2 name",
      async () => {
        const started = performance.now();
        const r = await dig(client1(), `fresh-${n++}.service.dc2.consul`);
        const elapsed = performance.now() - started;
        expect(elapsed).toBeLessThan(5_000);
        return r.status === "SERVFAIL" ? r : undefined;
      },
      60_000,
    );
    // dc1's own names still answer.
    expect((await dig(client1(), "consul.service.consul")).status).toBe("NOERROR");
  });
});
