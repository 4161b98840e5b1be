// Leader duties driven by gossip membership, on real in-process servers: servers that gossip finds join Raft
// and are promoted, members are reconciled into the catalog, autopilot reports health and removes a server
// that failed. Membership is a pool the test drives (the MembershipView seam); Raft, the fsm and the
// forwarding between servers are real.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts, waitFor } from "../../../../scripts/lib/index.js";
import { buildAgentConfig } from "../../src/config/index.js";
import type { AgentMember } from "../../src/membership/types.js";
import { CairnServer } from "../../src/server/server.js";
import { client, DrivenMembership } from "./unit/membership-fixture.js";

const dirs: string[] = [];
const servers: CairnServer[] = [];
const membership = new DrivenMembership();

async function startServer(name: string, bootstrap: boolean, withMembership: boolean): Promise<CairnServer> {
  const dir = mkdtempSync(join(tmpdir(), `cairn-gossip-${name}-`));
  dirs.push(dir);
  const [port, serfLan] = await freePorts(2);
  const { config } = buildAgentConfig(
    {
      node_name: name,
      server: true,
      bootstrap,
      bind_addr: "127.0.0.1",
      data_dir: dir,
      ports: { server: port!, serf_lan: serfLan!, http: -1 },
      autopilot: { server_stabilization_time: 1_000 },
    },
    { dev: false, hostname: name, clockOffsetMs: 0, configFiles: [] },
  );
  const server = await CairnServer.start({
    config,
    dataDir: dir,
    log: pino({ level: "silent" }),
    ...(withMembership ? { membership } : {}),
  });
  servers.push(server);
  return server;
}

/** The gossip record of a Cairn server, as the membership service would decode it. */
function memberOf(server: CairnServer): AgentMember {
  const port = server.serverAddress.slice(server.serverAddress.lastIndexOf(":") + 1);
  return {
    ...client(server.self.name, server.self.address),
    id: server.self.id,
    tags: { role: "consul", dc: "dc1", id: server.self.id, port, build: "1.15.0:cairn" },
    role: "server",
    rpcAddress: server.serverAddress,
  };
}

const conf = (s: CairnServer) => s.raft!.status().conf;
const serf = (s: CairnServer, node: string) =>
  s.store
    .view()
    .checksForNode(node)
    .value.find((c) => c.CheckID === "serfHealth")?.Status;

beforeAll(async () => {
  const leader = await startServer("s1", true, true);
  membership.set(memberOf(leader));
  await waitFor("s1 to lead", async () => (leader.raft?.isLeader() ? true : undefined), 10_000);
}, 20_000);

afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("leader duties driven by gossip membership", () => {
  it("adds servers gossip finds to Raft as non-voters, then promotes them", async () => {
    const [s1] = servers;
    const s2 = await startServer("s2", false, false);
    const s3 = await startServer("s3", false, false);
    membership.set(memberOf(s2));
    membership.set(memberOf(s3));
    await waitFor("three voters", async () => (conf(s1!).voters.length === 3 ? true : undefined), 20_000);
    expect(conf(s1!).voters.sort()).toEqual([s1!.self.id, s2.self.id, s3.self.id].sort());
    // Their catalog entries (reconciled by the leader, self-registered by themselves) agree: passing serfHealth.
    await waitFor(
      "servers in the catalog",
      async () => (["s2", "s3"].every((n) => serf(s1!, n) === "passing") ? true : undefined),
      10_000,
    );
    expect(
      s1!.store
        .view()
        .node("s2")
        .value?.services.map((s) => s.ID),
    ).toEqual(["consul"]);
  }, 40_000);

  it("reconciles client members: alive registered, failed critical, left deregistered", async () => {
    const [s1] = servers;
    membership.set(client("web-1", "127.0.0.9"));
    await waitFor("web-1 alive", async () => (serf(s1!, "web-1") === "passing" ? true : undefined), 10_000);
    membership.status("web-1", "failed");
    await waitFor(
      "web-1 critical",
      async () => (serf(s1!, "web-1") === "critical" ? true : undefined),
      10_000,
    );
    membership.status("web-1", "left");
    await waitFor(
      "web-1 deregistered",
      async () => (s1!.store.view().node("web-1").value ? undefined : true),
      10_000,
    );
  }, 20_000);

  it("keeps the autopilot configuration in Raft: the leader stores the agent's, a follower changes it", async () => {
    const [s1, s2] = servers;
    const initial = s2!.admin.autopilotConfiguration();
    expect(initial).toMatchObject({
      LastContactThreshold: "200ms",
      ServerStabilizationTime: "1s",
      MinQuorum: 0,
    });
    expect(initial.CreateIndex).toBeGreaterThan(0);
    const spec = {
      CleanupDeadServers: true,
      LastContactThresholdNs: 300_000_000,
      MaxTrailingLogs: 500,
      MinQuorum: 0,
      ServerStabilizationTimeNs: 1_000_000_000,
      RedundancyZoneTag: "",
      DisableUpgradeMigration: false,
      UpgradeVersionTag: "",
    };
    expect(await s2!.admin.setAutopilotConfiguration(spec, initial.ModifyIndex - 1)).toBe(false);
    expect(await s2!.admin.setAutopilotConfiguration(spec, initial.ModifyIndex)).toBe(true);
    await waitFor(
      "the leader to see it",
      async () => (s1!.admin.autopilotConfiguration().MaxTrailingLogs === 500 ? true : undefined),
      5_000,
    );
    expect(s1!.admin.autopilot.settings()).toMatchObject({
      lastContactThresholdMs: 300,
      maxTrailingLogs: 500,
    });
  }, 20_000);

  it("reports autopilot health through a follower, and removes a failed server", async () => {
    const [s1, s2, s3] = servers;
    const healthy = await waitFor(
      "a healthy cluster",
      async () => {
        const h = await s2!.admin.autopilotHealth();
        return h.Healthy ? h : undefined;
      },
      10_000,
    );
    expect(healthy.FailureTolerance).toBe(1);
    expect(healthy.Servers.map((s) => [s.Name, s.Leader, s.Voter, s.SerfStatus])).toEqual(
      expect.arrayContaining([
        ["s1", true, true, "alive"],
        ["s2", false, true, "alive"],
        ["s3", false, true, "alive"],
      ]),
    );

    await s3!.stop();
    membership.status("s3", "failed");
    const sick = await s1!.admin.autopilotHealth();
    expect(sick.Healthy).toBe(false);
    expect(sick.Servers.find((s) => s.Name === "s3")).toMatchObject({ SerfStatus: "failed", Healthy: false });

    await waitFor("s3 removed", async () => (conf(s1!).voters.length === 2 ? true : undefined), 15_000);
    expect(conf(s1!).voters).not.toContain(s3!.self.id);
    // Marked critical by member reconciliation, which runs apart from autopilot's removal.
    await waitFor("s3 critical", async () => (serf(s1!, "s3") === "critical" ? true : undefined), 10_000);
  }, 40_000);
});
