import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type HealthStatus, StateStore, type StateView } from "../src/index.js";
import { Harness } from "./helpers.js";

const NODES = ["n1", "n2", "n3"];
const SERVICES = ["web", "db"];
const CHECKS = ["serfHealth", "c1", "c2"];
const SESSIONS = ["00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b"];

type Step =
  | { t: "node"; node: string; address: string; skip: boolean }
  | { t: "service"; node: string; id: string; name: string; tag: string }
  | { t: "check"; node: string; id: string; serviceId: string; status: HealthStatus }
  | { t: "deregister-node"; node: string }
  | { t: "deregister-service"; node: string; id: string }
  | { t: "deregister-check"; node: string; id: string }
  | { t: "session"; id: string; node: string; checks: string[]; behavior: "release" | "delete" }
  | { t: "destroy"; id: string }
  | { t: "lock"; key: string; session: string };

const node = fc.constantFrom(...NODES);
const serviceId = fc.constantFrom("s1", "s2");
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    t: fc.constant("node" as const),
    node,
    address: fc.constantFrom("a", "b"),
    skip: fc.boolean(),
  }),
  fc.record({
    t: fc.constant("service" as const),
    node,
    id: serviceId,
    name: fc.constantFrom(...SERVICES),
    tag: fc.constantFrom("x", "y"),
  }),
  fc.record({
    t: fc.constant("check" as const),
    node,
    id: fc.constantFrom(...CHECKS),
    serviceId: fc.constantFrom("", "s1", "s2"),
    status: fc.constantFrom<HealthStatus>("passing", "warning", "critical"),
  }),
  fc.record({ t: fc.constant("deregister-node" as const), node }),
  fc.record({ t: fc.constant("deregister-service" as const), node, id: serviceId }),
  fc.record({ t: fc.constant("deregister-check" as const), node, id: fc.constantFrom(...CHECKS) }),
  fc.record({
    t: fc.constant("session" as const),
    id: fc.constantFrom(...SESSIONS),
    node,
    checks: fc.subarray(CHECKS, { maxLength: 2 }),
    behavior: fc.constantFrom("release" as const, "delete" as const),
  }),
  fc.record({ t: fc.constant("destroy" as const), id: fc.constantFrom(...SESSIONS) }),
  fc.record({
    t: fc.constant("lock" as const),
    key: fc.constantFrom("l/1", "l/2"),
    session: fc.constantFrom(...SESSIONS),
  }),
);

function run(h: Harness, s: Step): void {
  switch (s.t) {
    case "node":
      h.registerNode(s.node, { Address: s.address, SkipNodeUpdate: s.skip });
      return;
    case "service":
      h.registerNode(s.node, { SkipNodeUpdate: true, Service: { ID: s.id, Service: s.name, Tags: [s.tag] } });
      return;
    case "check":
      h.registerNode(s.node, {
        SkipNodeUpdate: true,
        Check: { CheckID: s.id, Status: s.status, ServiceID: s.serviceId || undefined },
      });
      return;
    case "deregister-node":
      h.run("catalog.deregister", { node: s.node, now: h.now });
      return;
    case "deregister-service":
      h.run("catalog.deregister", { node: s.node, serviceID: s.id, now: h.now });
      return;
    case "deregister-check":
      h.run("catalog.deregister", { node: s.node, checkID: s.id, now: h.now });
      return;
    case "session":
      h.createSession({ ID: s.id, Node: s.node, Checks: s.checks, Behavior: s.behavior, LockDelay: 0 });
      return;
    case "destroy":
      h.destroySession(s.id);
      return;
    case "lock":
      h.lock(s.key, s.session);
      return;
  }
}

/** Everything the catalog and session reads show, in a comparable form. */
function reads(v: StateView): unknown {
  return {
    nodes: v.nodes().value,
    services: v.services().value,
    instances: SERVICES.map((name) => v.serviceInstances(name).value),
    health: SERVICES.map((name) => v.serviceHealth(name).value),
    byNode: NODES.map((n) => [v.node(n).value, v.checksForNode(n).value, v.sessionsForNode(n).value]),
    critical: v.checksInState("critical").value,
    sessions: v.sessionList().value,
    locks: v.kvList("l/").value,
  };
}

/** Health as its definition reads: each instance with its node's checks and its own (no memo involved). */
function healthByDefinition(v: StateView, name: string): unknown {
  return v.serviceInstances(name).value.map((inst) => ({
    ...inst,
    checks: v
      .checksForNode(inst.node.Node)
      .value.filter(
        (c) =>
          c.ServiceID === "" || (c.ServiceID === inst.service.ID && c.Namespace === inst.service.Namespace),
      ),
  }));
}

function checkInvariants(v: StateView): void {
  // The store memoizes health reads by the service name's index: that index must move with every change.
  for (const name of SERVICES) expect(v.serviceHealth(name).value).toEqual(healthByDefinition(v, name));
  const nodes = new Set(v.nodes().value.map((n) => n.Node));
  for (const n of NODES) {
    const entry = v.node(n).value;
    if (!entry) {
      expect(v.checksForNode(n).value).toEqual([]);
      expect(v.sessionsForNode(n).value).toEqual([]);
      continue;
    }
    const serviceIds = new Set(entry.services.map((s) => s.ID));
    for (const c of v.checksForNode(n).value) {
      if (c.ServiceID) expect(serviceIds.has(c.ServiceID), `check ${c.CheckID} on ${n}`).toBe(true);
    }
  }
  const sessions = new Set<string>();
  for (const s of v.sessionList().value) {
    sessions.add(s.ID);
    expect(nodes.has(s.Node)).toBe(true);
    const checks = v.checksForNode(s.Node).value;
    for (const id of [...(s.Checks ?? []), ...s.NodeChecks, ...(s.ServiceChecks ?? []).map((c) => c.ID)]) {
      const check = checks.find((c) => c.CheckID === id);
      expect(check, `session check ${id}`).toBeDefined();
      expect(check?.Status).not.toBe("critical");
    }
  }
  for (const e of v.kvList("").value) if (e.Session) expect(sessions.has(e.Session)).toBe(true);
}

describe("catalog and session cascades keep their invariants", () => {
  it("under random registration, deregistration, sessions and locks", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const h = new Harness();
        for (const s of steps) {
          run(h, s);
          checkInvariants(h.store.view());
        }
        // Secondary indexes maintained incrementally must equal ones rebuilt from a snapshot.
        const restored = new StateStore();
        restored.restoreSync(h.store.snapshot());
        expect(reads(restored.view())).toEqual(reads(h.store.view()));
      }),
      { numRuns: 200 },
    );
  });
});
