// A real server agent and a client agent joined to it, both serving DNS, asked with `dig` and Node's
// dns.promises.Resolver: every name form, tag filtering, passing/warning/critical and maintenance, SRV
// targets that resolve, TTLs from the configuration and from a prepared query, reverse lookups, metrics.
import dgram from "node:dgram";
import { Resolver } from "node:dns/promises";
import * as packet from "dns-packet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentProcess,
  AgentScratch,
  clientFlags,
  freePorts,
  http,
  serverFlags,
  waitFor,
} from "../../../scripts/lib/index.js";
import { dig } from "./dig.js";

const scratch = new AgentScratch();
let server: AgentProcess;
let client: AgentProcess;
let serverDns: number;
let clientDns: number;
let queryId: string;
/** A small upstream for the server's -recursor: every question gets 192.0.2.9. */
const upstream = dgram.createSocket("udp4");

const put = async (agent: AgentProcess, path: string, body: unknown) => {
  const r = await http(`${agent.url}${path}`, "PUT", JSON.stringify(body));
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.text;
};

/** A catalog node with one `web`-like service and its checks, straight into the catalog. */
const register = (
  node: string,
  address: string,
  service: { name: string; port: number; tags?: string[]; address?: string },
  checks: { id: string; status: string; service?: boolean }[],
  meta: Record<string, string> = {},
) =>
  put(server, "/v1/catalog/register", {
    Node: node,
    Address: address,
    NodeMeta: meta,
    Service: {
      ID: service.name,
      Service: service.name,
      Port: service.port,
      Tags: service.tags ?? [],
      Address: service.address ?? "",
    },
    Checks: checks.map((c) => ({
      CheckID: c.id,
      Name: c.id,
      Status: c.status,
      ...(c.service === false ? {} : { ServiceID: service.name }),
    })),
  });

beforeAll(async () => {
  upstream.on("message", (msg, peer) => {
    const q = packet.decode(msg);
    const answers = (q.questions ?? []).map((x) => ({
      name: x.name,
      type: "A" as const,
      ttl: 60,
      data: "192.0.2.9",
    }));
    upstream.send(
      packet.encode({ type: "response", id: q.id ?? 0, questions: q.questions ?? [], answers }),
      peer.port,
      peer.address,
    );
  });
  await new Promise<void>((resolve) => upstream.bind(0, "127.0.0.1", () => resolve()));
  const [http1, rpc1, lan1, dns1, http2, rpc2, lan2, dns2] = await freePorts(8);
  serverDns = dns1!;
  clientDns = dns2!;
  const ttls = 'dns_config { node_ttl = "10s", service_ttl = { "*" = "5s", "db" = "30s" } }';
  server = scratch.spawn({
    name: "s1",
    ports: { http: http1!, server: rpc1!, serfLan: lan1! },
    flags: [
      ...serverFlags({ name: "s1", dataDir: scratch.path("s1"), bootstrapExpect: 1 }),
      "-dns-port",
      String(serverDns),
      "-recursor",
      `127.0.0.1:${upstream.address().port}`,
      "-hcl",
      ttls,
    ],
    logFile: scratch.path("s1.log"),
  });
  await waitFor(
    "a leader",
    async () => {
      const r = await http(`${server.url}/v1/status/leader`).catch(() => undefined);
      return r?.status === 200 && r.text !== '""' ? true : undefined;
    },
    60_000,
  );
  client = scratch.spawn({
    name: "c1",
    ports: { http: http2!, server: rpc2!, serfLan: lan2! },
    flags: [
      ...clientFlags({ name: "c1", dataDir: scratch.path("c1"), join: [`127.0.0.1:${lan1}`] }),
      "-dns-port",
      String(clientDns),
      "-hcl",
      ttls,
      "-hcl",
      "dns_config { disable_compression = true }",
    ],
    logFile: scratch.path("c1.log"),
  });
  await register(
    "web-1",
    "10.0.1.1",
    { name: "web", port: 80, tags: ["v1"] },
    [{ id: "c", status: "passing" }],
    { rack: "r1" },
  );
  await register("web-2", "10.0.1.2", { name: "web", port: 81, tags: ["v2"] }, [
    { id: "c", status: "warning" },
  ]);
  await register("web-3", "10.0.1.3", { name: "web", port: 82 }, [{ id: "c", status: "critical" }]);
  await register("web-4", "10.0.1.4", { name: "web", port: 83 }, [
    { id: "c", status: "passing" },
    { id: "_service_maintenance:web", status: "critical" },
  ]);
  await register("web-5", "10.0.1.5", { name: "web", port: 84 }, [
    { id: "c", status: "passing" },
    { id: "_node_maintenance", status: "critical", service: false },
  ]);
  await register("db-1", "10.0.2.1", { name: "db", port: 5432, address: "10.9.9.9" }, [
    { id: "c", status: "passing" },
  ]);
  await register("down-1", "10.0.3.1", { name: "down", port: 1 }, [{ id: "c", status: "critical" }]);
  const created = await http(
    `${server.url}/v1/query`,
    "POST",
    JSON.stringify({ Name: "webq", Service: { Service: "web" }, DNS: { TTL: "17s" } }),
  );
  queryId = (JSON.parse(created.text) as { ID: string }).ID;
}, 120_000);

afterAll(async () => {
  upstream.close();
  await scratch.dispose();
});

const addresses = (r: { answer: { type: string; data: string }[] }) =>
  r.answer
    .filter((a) => a.type === "A")
    .map((a) => a.data)
    .sort();

describe("service lookups", () => {
  it("gives passing and warning instances only, never critical or in maintenance, with the service TTL", async () => {
    const r = await waitFor("web over DNS", async () => {
      const x = await dig(serverDns, "web.service.consul", "A", "+tcp");
      return x.answer.length > 0 ? x : undefined;
    });
    expect(r.status).toBe("NOERROR");
    expect(r.flags).toContain("aa");
    expect(addresses(r)).toEqual(["10.0.1.1", "10.0.1.2"]);
    expect(r.answer.every((a) => a.ttl === 5)).toBe(true);
  });

  it("filters by tag, in both name forms", async () => {
    expect(addresses(await dig(serverDns, "v1.web.service.consul"))).toEqual(["10.0.1.1"]);
    const srv = await dig(serverDns, "_web._v2.service.dc1.consul", "SRV");
    expect(srv.answer).toEqual([
      { name: "_web._v2.service.dc1.consul.", ttl: 5, type: "SRV", data: "1 1 81 web-2.node.dc1.consul." },
    ]);
    expect(srv.additional).toContainEqual({
      name: "web-2.node.dc1.consul.",
      ttl: 5,
      type: "A",
      data: "10.0.1.2",
    });
    expect((await dig(serverDns, "_web._tcp.service.consul", "SRV")).answer).toHaveLength(2);
  });

  it("names a service's own IP as its SRV target, and that target resolves", async () => {
    const srv = await dig(serverDns, "db.service.consul", "SRV");
    expect(srv.answer[0]).toMatchObject({ ttl: 30, data: "1 1 5432 0a090909.addr.dc1.consul." });
    expect(srv.additional[0]).toMatchObject({ name: "0a090909.addr.dc1.consul.", data: "10.9.9.9" });
    expect(addresses(await dig(serverDns, "0a090909.addr.dc1.consul"))).toEqual(["10.9.9.9"]);
    const node = await dig(serverDns, "web-1.node.dc1.consul");
    expect(addresses(node)).toEqual(["10.0.1.1"]);
  });

  it("is NOERROR without answers for a service with no healthy instance, NXDOMAIN with SOA for an unknown one", async () => {
    const down = await dig(serverDns, "down.service.consul");
    expect(down.status).toBe("NOERROR");
    expect(down.answer).toEqual([]);
    expect(down.authority[0]?.type).toBe("SOA");
    for (const name of ["nope.service.consul", "web.service.dc2.consul", "x.y.consul", "nope.query.consul"]) {
      const r = await dig(serverDns, name);
      expect(r.status, name).toBe("NXDOMAIN");
      expect(r.authority[0]?.type).toBe("SOA");
    }
  });
});

describe("nodes, domain records and reverse lookups", () => {
  it("answers a node's address with the node TTL and its meta as TXT; a node in maintenance is absent", async () => {
    const a = await dig(serverDns, "web-1.node.consul");
    expect(a.answer).toEqual([{ name: "web-1.node.consul.", ttl: 10, type: "A", data: "10.0.1.1" }]);
    const txt = await dig(serverDns, "web-1.node.consul", "TXT");
    expect(txt.answer.map((x) => x.data)).toEqual(['"rack=r1"']);
    expect((await dig(serverDns, "web-5.node.consul")).status).toBe("NXDOMAIN");
  });

  it("gives the SOA and the servers as name servers", async () => {
    const soa = await dig(serverDns, "consul", "SOA");
    expect(soa.answer[0]?.data).toMatch(/^ns\.consul\. hostmaster\.consul\. \d+ 3600 600 86400 0$/);
    const ns = await dig(serverDns, "consul", "NS");
    expect(ns.answer.map((x) => x.data)).toEqual(["s1.server.dc1.consul."]);
    expect(ns.additional).toContainEqual({
      name: "s1.server.dc1.consul.",
      ttl: 10,
      type: "A",
      data: "127.0.0.1",
    });
  });

  it("answers PTR for a known node's address", async () => {
    const r = await dig(serverDns, "-x", "10.0.1.1");
    expect(r.answer.map((x) => x.data)).toEqual(["web-1.node.dc1.consul."]);
  });
});

describe("prepared queries", () => {
  it("runs a query by name and by ID with its DNS.TTL", async () => {
    for (const name of ["webq.query.consul", `${queryId}.query.consul`]) {
      const r = await dig(serverDns, name, "+tcp");
      expect(addresses(r), name).toEqual(["10.0.1.1", "10.0.1.2"]);
      expect(r.answer.every((a) => a.ttl === 17)).toBe(true);
    }
  });
});

describe("Node's resolver", () => {
  it("resolves A, SRV, TXT, reverse and reports unknown names", async () => {
    const resolver = new Resolver({ timeout: 5_000, tries: 1 });
    resolver.setServers([`127.0.0.1:${serverDns}`]);
    expect((await resolver.resolve4("web.service.consul")).sort()).toEqual(["10.0.1.1", "10.0.1.2"]);
    expect(await resolver.resolveSrv("v1.web.service.consul")).toEqual([
      { name: "web-1.node.dc1.consul", port: 80, priority: 1, weight: 1 },
    ]);
    expect(await resolver.resolveTxt("web-1.node.consul")).toEqual([["rack=r1"]]);
    expect(await resolver.reverse("10.0.1.2")).toEqual(["web-2.node.dc1.consul"]);
    await expect(resolver.resolve4("nope.service.consul")).rejects.toMatchObject({ code: "ENOTFOUND" });
    await expect(resolver.resolve4("down.service.consul")).rejects.toMatchObject({ code: "ENODATA" });
  });
});

describe("a client agent", () => {
  it("serves the same answers through its servers", async () => {
    const r = await waitFor(
      "web through the client agent",
      async () => {
        const x = await dig(clientDns, "web.service.consul", "+tcp");
        return x.answer.length > 0 ? x : undefined;
      },
      60_000,
    );
    expect(addresses(r)).toEqual(["10.0.1.1", "10.0.1.2"]);
    expect(addresses(await dig(clientDns, "webq.query.consul"))).toEqual(["10.0.1.1", "10.0.1.2"]);
  });

  it("writes names whole with disable_compression, the same records in a longer message", async () => {
    const ask = (port: number) =>
      new Promise<Buffer>((resolve) => {
        const s = dgram.createSocket("udp4");
        s.on("message", (m) => {
          s.close();
          resolve(m);
        });
        const q = {
          type: "query" as const,
          id: 5,
          questions: [{ name: "web.service.consul", type: "SRV" as const }],
        };
        s.send(packet.encode(q), port, "127.0.0.1");
      });
    const records = (m: Buffer) => {
      const d = packet.decode(m);
      return [...(d.answers ?? []), ...(d.additionals ?? [])].map((r) => JSON.stringify(r)).sort();
    };
    const compressed = await ask(serverDns);
    const whole = await waitFor("the client's answer", async () => {
      const m = await ask(clientDns);
      return records(m).length === records(compressed).length ? m : undefined;
    });
    expect(records(whole)).toEqual(records(compressed));
    expect(whole.length).toBeGreaterThan(compressed.length);
  });

  it("drops a local service from DNS once it is put in maintenance", async () => {
    await put(client, "/v1/agent/service/register", { Name: "local", Port: 7000 });
    await waitFor(
      "local over DNS",
      async () => ((await dig(clientDns, "local.service.consul")).answer.length > 0 ? true : undefined),
      60_000,
    );
    await put(client, "/v1/agent/service/maintenance/local?enable=true&reason=test", {});
    const r = await waitFor(
      "local gone from DNS",
      async () => {
        const x = await dig(clientDns, "local.service.consul");
        return x.answer.length === 0 ? x : undefined;
      },
      60_000,
    );
    expect(r.status).toBe("NOERROR");
  });
});

describe("recursors", () => {
  it("forwards names outside the domain to -recursor; a client agent without recursors refuses them", async () => {
    const r = await dig(serverDns, "example.org");
    expect(r.answer).toEqual([{ name: "example.org.", ttl: 60, type: "A", data: "192.0.2.9" }]);
    expect((await dig(clientDns, "example.org")).status).toBe("REFUSED");
    // An address of no known node goes to the recursors too, and is NXDOMAIN where there are none.
    expect((await dig(serverDns, "-x", "10.200.0.1")).answer[0]?.data).toBe("192.0.2.9");
    expect((await dig(clientDns, "-x", "10.200.0.1")).status).toBe("NXDOMAIN");
  });
});

describe("metrics", () => {
  it("counts queries by type and outcome", async () => {
    // /v1/agent/metrics shows the current 10 s interval only, as Consul's: ask, then read the counters in the
    // same interval, asking again if the interval rolled over in between.
    await waitFor(
      "an NXDOMAIN and an SRV NOERROR counted in one metrics interval",
      async () => {
        await dig(serverDns, "nope.service.consul");
        await dig(serverDns, "_web._tcp.service.consul", "SRV");
        const r = await http(`${server.url}/v1/agent/metrics`);
        const body = JSON.parse(r.text) as { Counters: { Name: string; Labels: Record<string, string> }[] };
        const dns = body.Counters.filter((c) => c.Name === "cairn.dns.queries");
        const nx = dns.some((c) => c.Labels.rcode === "NXDOMAIN");
        const srv = dns.some((c) => c.Labels.type === "SRV" && c.Labels.rcode === "NOERROR");
        return nx && srv ? true : undefined;
      },
      20_000,
    );
  });
});
