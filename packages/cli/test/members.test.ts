// `cairn members`, `join`, `leave` and `force-leave` against a stand-in HTTP peer on loopback that answers the
// membership endpoints as a Consul agent does (the real endpoints live in the agent and are tested there).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cairnInProcess } from "./helpers/cairn.js";

interface Seen {
  method: string;
  url: string;
}

const member = (name: string, addr: string, status: number, tags: Record<string, string>) => ({
  Name: name,
  Addr: addr,
  Port: 8301,
  Tags: tags,
  Status: status,
  ProtocolMin: 1,
  ProtocolMax: 5,
  ProtocolCur: 2,
  DelegateMin: 2,
  DelegateMax: 5,
  DelegateCur: 4,
});

const MEMBERS = [
  member("zeta-client", "10.0.0.9", 1, { role: "node", dc: "dc1", build: "1.15.0:abcdef", vsn: "2" }),
  member("alpha-server", "10.0.0.1", 1, {
    role: "consul",
    dc: "dc1",
    build: "1.15.0:abcdef",
    vsn: "2",
    port: "8300",
  }),
  member("gone", "10.0.0.7", 4, { role: "node", dc: "dc1", build: "1.15.0", vsn: "2" }),
  member("six", "fe80::1", 3, { role: "node", dc: "dc1", build: "", vsn: "2" }),
];

let server: Server;
let env: Record<string, string>;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "" });
    const url = new URL(req.url ?? "/", "http://x");
    if (req.method === "GET" && url.pathname === "/v1/agent/members") {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify(MEMBERS));
    } else if (req.method === "PUT" && url.pathname.startsWith("/v1/agent/join/")) {
      const address = decodeURIComponent(url.pathname.slice("/v1/agent/join/".length));
      if (address.startsWith("bad")) {
        res.statusCode = 500;
        res.end(`1 error occurred:\n\t* Failed to join ${address}: dial tcp: connection refused\n\n`);
      } else res.end();
    } else if (req.method === "PUT" && url.pathname === "/v1/agent/leave") res.end();
    else if (req.method === "PUT" && url.pathname.startsWith("/v1/agent/force-leave/")) {
      if (url.pathname.endsWith("/unknown")) {
        res.statusCode = 500;
        res.end("agent: No node found with name 'unknown'");
      } else res.end();
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  env = { CAIRN_HTTP_ADDR: `127.0.0.1:${(server.address() as AddressInfo).port}` };
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
});

const run = (...args: string[]) => cairnInProcess(args, { env });

describe("cairn members", () => {
  it("prints consul's columns, servers first, then by name", async () => {
    const r = await run("members");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "Node          Address         Status  Type    Build   Protocol  DC   Partition  Segment",
        "alpha-server  10.0.0.1:8301   alive   server  1.15.0  2         dc1  default    <all>",
        "gone          10.0.0.7:8301   failed  client  1.15.0  2         dc1  default    <default>",
        "six           [fe80::1]:8301  left    client  < 0.3   2         dc1  default    <default>",
        "zeta-client   10.0.0.9:8301   alive   client  1.15.0  2         dc1  default    <default>",
        "",
      ].join("\n"),
    );
    expect(seen).toEqual([{ method: "GET", url: "/v1/agent/members?segment=_all" }]);
  });

  it("filters by status, and exits 2 with no output when nothing matches", async () => {
    const r = await run("members", "-status=^(failed|left)$", "-wan");
    expect(r.stdout.split("\n").map((l) => l.split(/\s+/)[0])).toEqual(["Node", "gone", "six", ""]);
    expect(seen[0]?.url).toBe("/v1/agent/members?segment=_all&wan=1");
    const none = await run("members", "-status=leaving");
    expect([none.code, none.stdout, none.stderr]).toEqual([2, "", ""]);
    const bad = await run("members", "-status=(");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^Failed to compile status regexp: /);
  });

  it("prints every tag with -detailed, including the partition and segment it shows", async () => {
    const r = await run("members", "-detailed", "-status=alive");
    expect(r.stdout.split("\n")).toEqual([
      "Node          Address        Status  Tags",
      "alpha-server  10.0.0.1:8301  alive   ap=default,build=1.15.0:abcdef,dc=dc1,port=8300,role=consul,segment=<all>,vsn=2",
      "zeta-client   10.0.0.9:8301  alive   ap=default,build=1.15.0:abcdef,dc=dc1,role=node,segment=<default>,vsn=2",
      "",
    ]);
  });

  it("reports an unreachable agent", async () => {
    const r = await cairnInProcess(["members"], { env: { CAIRN_HTTP_ADDR: "127.0.0.1:1" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^Error retrieving members: Get "http:\/\/127\.0\.0\.1:1\/v1\/agent\/members\?segment=_all": /,
    );
  });
});

describe("cairn join, leave, force-leave", () => {
  it("joins through every address it can and counts them", async () => {
    const r = await run("join", "-wan", "10.0.0.2:8301", "bad-host", "10.0.0.3");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Successfully joined cluster by contacting 2 nodes.\n");
    expect(r.stderr).toMatch(
      /^Error joining address 'bad-host': Unexpected response code: 500 \(1 error occurred:/,
    );
    expect(seen.map((s) => s.url)).toEqual([
      "/v1/agent/join/10.0.0.2%3A8301?wan=1",
      "/v1/agent/join/bad-host?wan=1",
      "/v1/agent/join/10.0.0.3?wan=1",
    ]);
    const none = await run("join", "bad-one");
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/\nFailed to join any nodes\.\n$/);
    const missing = await run("join");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^At least one address to join must be specified\.\n\nUsage: cairn join/);
  });

  it("leaves gracefully, refusing extra arguments", async () => {
    const r = await run("leave");
    expect([r.code, r.stdout]).toEqual([0, "Graceful leave complete\n"]);
    expect(seen).toEqual([{ method: "PUT", url: "/v1/agent/leave" }]);
    const extra = await run("leave", "a", "b");
    expect(extra.code).toBe(1);
    expect(extra.stderr).toBe("Error found unexpected args: [a b]\n");
    expect(extra.stdout).toMatch(/^Usage: cairn leave/);
  });

  it("force-leaves one node, with -prune and -wan", async () => {
    const r = await run("force-leave", "-prune", "-wan", "gone");
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "", ""]);
    expect(seen).toEqual([{ method: "PUT", url: "/v1/agent/force-leave/gone?prune=1&wan=1" }]);
    const unknown = await run("force-leave", "unknown");
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      "Error force leaving: Unexpected response code: 500 (agent: No node found with name 'unknown')\n",
    ]);
    const two = await run("force-leave", "a", "b");
    expect(two.code).toBe(1);
    expect(two.stderr).toMatch(/^A single node name must be specified to force leave\./);
  });
});
