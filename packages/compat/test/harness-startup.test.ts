// Cairn started the way client test harnesses start `consul` (python-consul2's and the npm client's suites,
// Patroni's): `-dev` in a scratch working directory, a configuration file the harness wrote (with `null`
// values), and `-pid-file` under a folder that does not exist yet. Then what those harnesses and clients
// rely on: the pid file, `/`, `/v1/agent/self`, the lenient session answers, the errors Patroni recognises,
// ACL bootstrap reset through the working directory, and the pid file gone after a clean exit.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import Consul from "consul";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentProcess,
  AgentScratch,
  awaitLeader,
  freePorts,
  http,
  signal,
  waitFor,
} from "../../../scripts/lib/index.js";

const scratch = new AgentScratch();
const workDir = scratch.path("cwd");
const pidFile = scratch.path("run", "nested", "consul.pid");
let agent: AgentProcess;
let consul: Consul;

const call = async (method: string, path: string, body?: string, token?: string) =>
  http(`${agent.url}${path}`, method, body, token ? { headers: { "X-Consul-Token": token } } : {});

beforeAll(async () => {
  mkdirSync(workDir, { recursive: true });
  const configFile = scratch.path("config.json");
  // Keys set to null, as harnesses write them for options they leave to the default.
  writeFileSync(
    configFile,
    JSON.stringify({
      node_name: "harness",
      datacenter: null,
      acl: { enabled: true, default_policy: "allow", tokens: { agent: null, default: null } },
      encrypt: null,
      retry_join: null,
      session_ttl_min: null,
      node_meta: { harness: "yes", owner: null },
      ports: { dns: null },
    }),
  );
  const [httpPort, serverPort, serfLan, serfWan] = await freePorts(4);
  agent = scratch.spawn({
    name: "harness",
    ports: { http: httpPort!, server: serverPort!, serfLan: serfLan!, serfWan: serfWan! },
    flags: ["-dev", "-config-file", configFile, "-pid-file", pidFile],
    workDir,
    logFile: scratch.path("agent.log"),
  });
  await awaitLeader([agent]);
  consul = new Consul({ host: agent.http.host, port: agent.http.port });
}, 90_000);

afterAll(async () => {
  consul?.destroy();
  await scratch.dispose();
});

describe("a harness-style start-up", () => {
  it("writes the pid file into a folder it creates", () => {
    expect(readFileSync(pidFile, "utf8").trim()).toBe(String(agent.process.pid));
  });

  it("took the configuration file's nulls as absent", async () => {
    const self = (await consul.agent.self()) as { Config: Record<string, unknown>; Meta: unknown };
    expect(self.Config).toMatchObject({ NodeName: "harness", Datacenter: "dc1", Server: true });
    expect(self.Meta).toEqual({ harness: "yes", "consul-network-segment": "" });
  });

  it("answers GET / so an HTTP check on the agent's root passes (the dev UI is on: a redirect)", async () => {
    const res = await fetch(`${agent.url}/`, { redirect: "manual" });
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("/ui/");
    expect((await fetch(`${agent.url}/`)).status).toBe(200);
  });
});

describe("/v1/agent/self and /v1/status", () => {
  interface Self {
    Config: Record<string, unknown>;
    DebugConfig: Record<string, unknown>;
    Coord: { Vec: number[] };
    Member: { Name: string; Tags: Record<string, string> };
    Stats: Record<string, Record<string, string>>;
  }

  it("has Member equal to this agent's /v1/agent/members record, Consul's names and Stats", async () => {
    const self = (await consul.agent.self()) as Self;
    const members = (await consul.agent.members()) as { Name: string }[];
    expect(self.Member).toEqual(members.find((m) => m.Name === "harness"));
    expect(self.Member.Tags).toMatchObject({ role: "consul", wan_join_port: expect.any(String) });
    expect(self.Config).toMatchObject({ SessionTTLMin: 10_000_000_000, Version: expect.any(String) });
    expect(self.DebugConfig).toMatchObject({
      NodeName: "harness",
      Datacenter: "dc1",
      ServerMode: true,
      DevMode: true,
      ACLsEnabled: true,
      SerfAdvertiseAddrLAN: `tcp://127.0.0.1:${agent.options.ports.serfLan}`,
      RPCAdvertiseAddr: `tcp://${agent.rpcAddress}`,
      PidFile: pidFile,
    });
    expect(self.Coord.Vec).toHaveLength(8);
    expect(self.Stats.consul).toMatchObject({
      leader: "true",
      leader_addr: agent.rpcAddress,
      server: "true",
      acl: "enabled",
    });
    expect(self.Stats.raft).toMatchObject({ state: "Leader", num_peers: "0" });
    expect(self.Stats.serf_lan).toMatchObject({ members: "1", failed: "0" });
    expect(self.Stats.agent).toMatchObject({ services: expect.any(String) });
  });

  it("names the leader and the peers by server RPC address", async () => {
    expect(JSON.parse((await call("GET", "/v1/status/leader")).text)).toBe(agent.rpcAddress);
    expect(JSON.parse((await call("GET", "/v1/status/peers")).text)).toEqual([agent.rpcAddress]);
  });
});

describe("sessions and locks as clients use them", () => {
  it("renewing an unknown session is a 404, as python-consul's suite expects ('1' * 36)", async () => {
    const res = await call("PUT", `/v1/session/renew/${"1".repeat(36)}`);
    expect(res.status).toBe(404);
    expect((await call("GET", "/v1/session/info/not-a-session")).text).toBe("[]");
  });

  it("releasing with a session that is not UUID-shaped answers false", async () => {
    expect((await call("PUT", "/v1/kv/harness/lock", "v")).text).toBe("true");
    expect((await call("PUT", "/v1/kv/harness/lock?release=foo", "v")).text).toBe("false");
  });

  it("an expired session's acquire is a 500 starting `invalid session`, Patroni's cue to recreate it", async () => {
    const { ID } = JSON.parse((await call("PUT", "/v1/session/create", "{}")).text) as { ID: string };
    expect((await call("PUT", `/v1/session/destroy/${ID}`)).status).toBe(200);
    const res = await call("PUT", `/v1/kv/harness/leader?acquire=${ID}`, "me");
    expect(res.status).toBe(500);
    expect(res.text).toBe(`invalid session "${ID}"`);
  });

  it("a TTL below session_ttl_min is a 500 starting `Invalid Session TTL`, as Patroni reads it", async () => {
    const res = await call("PUT", "/v1/session/create", JSON.stringify({ TTL: "5s" }));
    expect(res.status).toBe(500);
    expect(res.text).toBe("Invalid Session TTL '5000000000', must be between [10s=24h0m0s]");
  });
});

describe("ACL bootstrap reset in -dev: the working directory's acl-bootstrap-reset", () => {
  it("refuses a second bootstrap with the reset index, and allows one more once it is written", async () => {
    const first = await call("PUT", "/v1/acl/bootstrap");
    expect(first.status).toBe(200);
    const refused = await call("PUT", "/v1/acl/bootstrap");
    expect(refused.status).toBe(403);
    const index = /reset index: (\d+)/.exec(refused.text)?.[1];
    expect(index).toBeDefined();
    writeFileSync(`${workDir}/acl-bootstrap-reset`, `${index}\n`);
    const second = await call("PUT", "/v1/acl/bootstrap");
    expect(second.status).toBe(200);
    const token = JSON.parse(second.text) as { SecretID: string };
    expect(token.SecretID).not.toBe((JSON.parse(first.text) as { SecretID: string }).SecretID);
    expect(existsSync(`${workDir}/acl-bootstrap-reset`)).toBe(false);
    expect((await call("GET", "/v1/acl/tokens", undefined, token.SecretID)).status).toBe(200);
    expect((await call("PUT", "/v1/acl/bootstrap")).status).toBe(403);
  });
});

describe("a clean exit", () => {
  it("removes the pid file", async () => {
    signal(agent.process, "SIGTERM");
    expect(await agent.process.exited).toBe(0);
    await waitFor("the pid file to be gone", async () => (existsSync(pidFile) ? undefined : true), 5_000);
  });
});
