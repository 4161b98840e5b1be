import { COMMAND_VERSION, type Command, encodeCommand, StateStore } from "@cairn/fsm";
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { AgentMember } from "../../../src/membership/types.js";
import {
  planReconcile,
  type RaftMembership,
  type ReconcileStep,
} from "../../../src/server/leader/member-reconcile.js";
import { MemberReconciler } from "../../../src/server/leader/member-reconciler.js";
import { selfRegistration } from "../../../src/server/self-registration.js";
import { client, DrivenMembership, server } from "./membership-fixture.js";

const SELF = { name: "leader", id: "id-leader", datacenter: "dc1", primaryDatacenter: "dc1" };
const NOW = Date.parse("2026-01-01T00:00:00Z");

function catalog() {
  const store = new StateStore();
  let index = 0;
  const apply = (command: Command) => {
    const result = store.apply(++index, encodeCommand(command));
    if (result && typeof result === "object" && "error" in result && result.error)
      throw new Error(String(result.error));
    return result;
  };
  return { store, apply };
}

function raftOf(voters: string[], learners: string[] = [], addresses: Record<string, string> = {}) {
  return { voters, learners, address: (id: string) => addresses[id] } satisfies RaftMembership;
}

/** Plans over the store and carries out the catalog steps, as the leader would. */
function reconcile(
  c: ReturnType<typeof catalog>,
  members: AgentMember[],
  options: { full?: boolean; raft?: RaftMembership } = {},
): ReconcileStep[] {
  const steps = planReconcile({
    self: SELF,
    members,
    ...(options.full === false ? {} : { known: new Set(members.map((m) => m.name)) }),
    view: c.store.view(),
    raft: options.raft ?? raftOf([SELF.id]),
    now: NOW,
  });
  for (const step of steps) if (step.kind === "catalog") c.apply(step.command);
  return steps;
}

const serfCheck = (c: ReturnType<typeof catalog>, node: string) =>
  c.store
    .view()
    .checksForNode(node)
    .value.find((x) => x.CheckID === "serfHealth");

describe("member reconciliation plan", () => {
  it("registers an alive member with a passing serfHealth check, once", () => {
    const c = catalog();
    const steps = reconcile(c, [client("web-1", "10.0.0.5")]);
    expect(steps.map((s) => s.kind)).toEqual(["catalog"]);
    const node = c.store.view().node("web-1").value?.node;
    expect(node).toMatchObject({
      ID: "id-web-1",
      Address: "10.0.0.5",
      Datacenter: "dc1",
      TaggedAddresses: { lan: "10.0.0.5", lan_ipv4: "10.0.0.5", wan: "10.0.0.5", wan_ipv4: "10.0.0.5" },
    });
    expect(serfCheck(c, "web-1")).toMatchObject({
      Name: "Serf Health Status",
      Status: "passing",
      Output: "Agent alive and reachable",
    });
    expect(reconcile(c, [client("web-1", "10.0.0.5")])).toEqual([]);
  });

  it("keeps what the agent registered itself (addresses, meta, services) when re-marking it alive", () => {
    const c = catalog();
    c.apply({
      v: COMMAND_VERSION,
      type: "catalog.register",
      registration: {
        ID: "id-web-1",
        Node: "web-1",
        Address: "10.0.0.5",
        TaggedAddresses: { lan: "10.0.0.5", wan: "203.0.113.5" },
        NodeMeta: { rack: "r7" },
        Service: { ID: "web", Service: "web", Port: 80 },
        Check: { CheckID: "serfHealth", Name: "Serf Health Status", Status: "critical" },
      },
      now: NOW,
    });
    expect(reconcile(c, [client("web-1", "10.0.0.5")]).length).toBe(1);
    const entry = c.store.view().node("web-1").value;
    expect(entry?.node.TaggedAddresses).toEqual({ lan: "10.0.0.5", wan: "203.0.113.5" });
    expect(entry?.node.Meta).toEqual({ rack: "r7" });
    expect(entry?.services.map((s) => s.ID)).toEqual(["web"]);
    expect(serfCheck(c, "web-1")?.Status).toBe("passing");
  });

  it("agrees with a server's self-registration: nothing to write for it", () => {
    const c = catalog();
    c.apply(
      selfRegistration(
        { id: "id-s2", name: "s2", datacenter: "dc1", address: "10.0.0.2", serverPort: 8300, meta: {} },
        NOW,
      ),
    );
    const steps = reconcile(c, [server("s2", "10.0.0.2")], {
      raft: raftOf([SELF.id, "id-s2"], [], { "id-s2": "10.0.0.2:8300" }),
    });
    expect(steps).toEqual([]);
  });

  it("registers an alive server with its consul service and adds it to Raft as a non-voter", () => {
    const c = catalog();
    const steps = reconcile(c, [server("s2", "10.0.0.2")]);
    expect(steps.filter((s) => s.kind !== "catalog")).toEqual([
      { kind: "raft-join", id: "id-s2", address: "10.0.0.2:8300" },
    ]);
    expect(c.store.view().node("s2").value?.services).toMatchObject([
      { ID: "consul", Service: "consul", Port: 8300 },
    ]);
  });

  it("keeps a server that names another primary datacenter out of Raft (one naming none, or the same, joins)", () => {
    const c = catalog();
    const tagged = (name: string, primary: string | undefined) => {
      const s = server(name, `10.0.0.${name.slice(1)}`);
      return { ...s, tags: { ...s.tags, ...(primary === undefined ? {} : { primary_dc: primary }) } };
    };
    const steps = reconcile(c, [tagged("s2", "dc9"), tagged("s3", "dc1"), tagged("s4", undefined)]);
    expect(steps.filter((s) => s.kind === "raft-join").map((s) => ("id" in s ? s.id : ""))).toEqual([
      "id-s3",
      "id-s4",
    ]);
    // Still registered in the catalog, as any member of the datacenter's pool.
    expect(c.store.view().node("s2").value).toBeDefined();
  });

  it("removes a stale Raft entry at the address a rejoining server now answers at under a new ID", () => {
    const c = catalog();
    const raft = raftOf([SELF.id, "old-id"], [], { "old-id": "10.0.0.2:8300" });
    const steps = reconcile(c, [server("s2", "10.0.0.2")], { raft }).filter((s) => s.kind !== "catalog");
    expect(steps.map((s) => [s.kind, "id" in s ? s.id : ""])).toEqual([
      ["raft-remove", "old-id"],
      ["raft-join", "id-s2"],
    ]);
  });

  it("marks a failed member's serfHealth critical, invalidating its sessions, once", () => {
    const c = catalog();
    reconcile(c, [client("web-1", "10.0.0.5")]);
    c.apply({
      v: COMMAND_VERSION,
      type: "session.create",
      session: { ID: "11111111-0000-0000-0000-000000000001", Node: "web-1", Checks: ["serfHealth"] },
      now: NOW,
    });
    const failed = client("web-1", "10.0.0.5", { status: "failed" });
    expect(reconcile(c, [failed]).map((s) => s.kind)).toEqual(["catalog"]);
    expect(serfCheck(c, "web-1")).toMatchObject({
      Status: "critical",
      Output: "Agent not live or unreachable",
    });
    expect(c.store.view().sessionGet("11111111-0000-0000-0000-000000000001").value).toBeUndefined();
    expect(reconcile(c, [failed])).toEqual([]);
  });

  it("deregisters a member that left; a server that left also leaves Raft", () => {
    const c = catalog();
    reconcile(c, [client("web-1", "10.0.0.5"), server("s2", "10.0.0.2")]);
    const raft = raftOf([SELF.id, "id-s2"]);
    const steps = reconcile(
      c,
      [client("web-1", "10.0.0.5", { status: "left" }), server("s2", "10.0.0.2", { status: "left" })],
      { raft },
    );
    expect(steps.map((s) => s.kind)).toEqual(["catalog", "raft-remove", "catalog"]);
    expect(c.store.view().node("web-1").value).toBeUndefined();
    expect(c.store.view().node("s2").value).toBeUndefined();
  });

  it("reaps catalog nodes with serfHealth that gossip no longer knows, but not external nodes or itself", () => {
    const c = catalog();
    reconcile(c, [client("web-1", "10.0.0.5"), server("s2", "10.0.0.2")]);
    c.apply(
      selfRegistration(
        { id: SELF.id, name: SELF.name, datacenter: "dc1", address: "10.0.0.1", serverPort: 8300, meta: {} },
        NOW,
      ),
    );
    c.apply({
      v: COMMAND_VERSION,
      type: "catalog.register",
      registration: { Node: "external-db", Address: "db.example.com" },
      now: NOW,
    });
    const steps = reconcile(c, [], { raft: raftOf([SELF.id, "id-s2"]) });
    const described = steps.map((s) => `${s.kind} ${"node" in s ? s.node : s.id}`);
    expect([...described].sort()).toEqual(["catalog s2", "catalog web-1", "raft-remove id-s2"]);
    // A reaped server leaves Raft before its catalog entry goes.
    expect(described.indexOf("raft-remove id-s2")).toBeLessThan(described.indexOf("catalog s2"));
    const names = c.store
      .view()
      .nodes()
      .value.map((n) => n.Node)
      .sort();
    expect(names).toEqual(["external-db", "leader"]);
  });

  it("leaves the leader itself, other datacenters and members still leaving alone", () => {
    const c = catalog();
    const steps = reconcile(c, [
      client("leader", "10.0.0.1", { status: "failed" }),
      client("far", "10.9.0.1", { datacenter: "dc2" }),
      client("going", "10.0.0.7", { status: "leaving" }),
    ]);
    expect(steps).toEqual([]);
  });
});

describe("member reconciler (leader duty)", () => {
  it("reconciles at start and after batched member changes, driving Raft joins and removals", async () => {
    const c = catalog();
    const membership = new DrivenMembership();
    membership.set(client("web-1", "10.0.0.5"));
    const raftCalls: string[] = [];
    const conf = { voters: [SELF.id], learners: [] as string[] };
    const reconciler = new MemberReconciler({
      self: () => SELF,
      membership,
      store: c.store,
      apply: async (command) => c.apply(command),
      raft: {
        membership: () => raftOf(conf.voters, conf.learners),
        join: async (id, address) => {
          raftCalls.push(`join ${id} ${address}`);
          conf.learners.push(id);
        },
        remove: async (id) => {
          raftCalls.push(`remove ${id}`);
          conf.learners = conf.learners.filter((l) => l !== id);
        },
      },
      log: pino({ level: "silent" }),
      now: () => NOW,
      intervalMs: 60_000,
      batchMs: 5,
      reapGraceMs: 60_000,
    });
    reconciler.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await reconciler.settled();
    expect(serfCheck(c, "web-1")?.Status).toBe("passing");

    membership.set(server("s2", "10.0.0.2"));
    membership.status("web-1", "failed");
    await new Promise((resolve) => setTimeout(resolve, 20));
    await reconciler.settled();
    expect(serfCheck(c, "web-1")?.Status).toBe("critical");
    expect(raftCalls).toEqual(["join id-s2 10.0.0.2:8300"]);

    membership.reap("web-1");
    membership.status("s2", "left");
    await new Promise((resolve) => setTimeout(resolve, 20));
    await reconciler.settled();
    expect(c.store.view().node("web-1").value).toBeUndefined();
    expect(c.store.view().node("s2").value).toBeUndefined();
    expect(raftCalls).toEqual(["join id-s2 10.0.0.2:8300", "remove id-s2"]);

    reconciler.stop();
    membership.set(client("web-9", "10.0.0.9"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(c.store.view().node("web-9").value).toBeUndefined();
  });

  it("reaps a node missing from a freshly started pool only after it stayed missing for the grace period", async () => {
    const c = catalog();
    // Reconciled by an earlier leader; this leader's pool has not heard of it (yet).
    reconcile(c, [client("web-7", "10.0.0.7")]);
    let now = NOW;
    const reconciler = new MemberReconciler({
      self: () => SELF,
      membership: new DrivenMembership(),
      store: c.store,
      apply: async (command) => c.apply(command),
      raft: { membership: () => raftOf([SELF.id]), join: async () => {}, remove: async () => {} },
      log: pino({ level: "silent" }),
      now: () => now,
      intervalMs: 20,
      batchMs: 5,
      reapGraceMs: 60_000,
    });
    reconciler.start();
    await new Promise((resolve) => setTimeout(resolve, 60));
    await reconciler.settled();
    expect(c.store.view().node("web-7").value).toBeDefined();
    now += 60_000;
    await new Promise((resolve) => setTimeout(resolve, 60));
    await reconciler.settled();
    reconciler.stop();
    expect(c.store.view().node("web-7").value).toBeUndefined();
  });

  it("logs a refused step and carries on with the rest", async () => {
    const c = catalog();
    c.apply({
      v: COMMAND_VERSION,
      type: "catalog.register",
      registration: { ID: "id-web-2", Node: "renamed", Address: "10.0.0.2" },
      now: NOW,
    });
    const membership = new DrivenMembership();
    membership.set(client("web-2", "10.0.0.2"));
    membership.set(client("web-3", "10.0.0.3"));
    const lines: string[] = [];
    const reconciler = new MemberReconciler({
      self: () => SELF,
      membership,
      store: c.store,
      apply: async (command) => {
        try {
          return c.apply(command);
        } catch (err) {
          return { error: (err as Error).message, status: 400 };
        }
      },
      raft: { membership: () => raftOf([SELF.id]), join: async () => {}, remove: async () => {} },
      log: pino({ level: "warn" }, { write: (line: string) => void lines.push(line) }),
      now: () => NOW,
      intervalMs: 60_000,
      batchMs: 5,
      reapGraceMs: 60_000,
    });
    reconciler.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await reconciler.settled();
    reconciler.stop();
    expect(c.store.view().node("web-2").value).toBeUndefined();
    expect(serfCheck(c, "web-3")?.Status).toBe("passing");
    expect(lines.join("")).toContain("aliases existing node");
  });
});
