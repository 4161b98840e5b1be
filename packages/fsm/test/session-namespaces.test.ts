import { describe, expect, it } from "vitest";
import { type HealthStatus, StateStore } from "../src/index.js";
import { bytes, Harness } from "./helpers.js";

const S1 = "11111111-1111-1111-1111-111111111111";
const S2 = "22222222-2222-2222-2222-222222222222";

/** serfHealth is registered as the server does: a node-level check in the default namespace. */
function withNode(): Harness {
  const h = new Harness().namespaces("team");
  h.registerNode("n1", { Check: { CheckID: "serfHealth", Name: "Serf", Status: "passing" } });
  return h;
}

function setSerf(h: Harness, Status: HealthStatus): void {
  h.registerNode("n1", { Check: { CheckID: "serfHealth", Name: "Serf", Status } });
}

function lockIn(h: Harness, ns: string, key: string, session: string): void {
  h.run("kv.lock", { ns, key, value: bytes("x"), flags: 0n, session, now: h.now });
}

describe("sessions outside the default namespace", () => {
  it("find the node's default-namespace node checks", () => {
    const h = withNode();
    expect(h.createSession({ ID: S1, Namespace: "team", Checks: ["serfHealth"] })).toEqual({ ID: S1 });
    expect(h.store.view().sessionGet(S1, "team").value).toMatchObject({
      Namespace: "team",
      Checks: ["serfHealth"],
    });
  });

  it("find service checks in their own namespace only", () => {
    const h = withNode();
    h.registerNode("n1", {
      Service: { ID: "web", Service: "web", Namespace: "team" },
      Check: { CheckID: "web-alive", ServiceID: "web", Status: "passing", Namespace: "team" },
    });
    h.registerNode("n1", {
      Service: { ID: "db", Service: "db" },
      Check: { CheckID: "db-alive", ServiceID: "db", Status: "passing" },
    });
    expect(h.createSession({ ID: S1, Namespace: "team", Checks: ["serfHealth", "web-alive"] })).toEqual({
      ID: S1,
    });
    // A default-namespace service check is not a node check: another namespace's session may not name it.
    expect(h.createSession({ ID: S2, Namespace: "team", Checks: ["db-alive"] })).toMatchObject({
      error: "Missing check 'db-alive' registration",
    });
    expect(h.createSession({ ID: S2, Checks: ["web-alive"] })).toMatchObject({
      error: "Missing check 'web-alive' registration",
    });
  });

  it("refuse a critical node check", () => {
    const h = withNode();
    setSerf(h, "critical");
    expect(h.createSession({ ID: S1, Namespace: "team", Checks: ["serfHealth"] })).toMatchObject({
      error: "Check 'serfHealth' is in critical state",
    });
  });

  it("are invalidated, in every namespace, when the node check goes critical", () => {
    const h = withNode();
    h.createSession({ ID: S1, Namespace: "team", Checks: ["serfHealth"] });
    h.createSession({ ID: S2, Checks: ["serfHealth"] });
    lockIn(h, "team", "lock", S1);
    expect(h.store.view().kvGet("lock", "team").value?.Session).toBe(S1);
    expect(h.store.view().sessionList("*").value).toHaveLength(2);
    setSerf(h, "critical");
    expect(h.store.view().sessionList("*").value).toEqual([]);
    expect(h.store.view().kvGet("lock", "team").value?.Session).toBeUndefined();
  });

  it("are invalidated when the node check is deregistered, also after a snapshot restore", () => {
    const h = withNode();
    h.createSession({ ID: S1, Namespace: "team", Checks: ["serfHealth"] });
    const copy = new StateStore();
    copy.restoreSync(h.store.snapshot());
    expect(copy.view().sessionGet(S1, "team").value?.Namespace).toBe("team");
    h.run("catalog.deregister", { node: "n1", checkID: "serfHealth", now: h.now });
    expect(h.store.view().sessionGet(S1, "team").value).toBeUndefined();
  });

  it("destroy leaves no index behind: a later critical check touches nothing", () => {
    const h = withNode();
    h.createSession({ ID: S1, Namespace: "team", Checks: ["serfHealth"] });
    h.run("session.destroy", { ns: "team", id: S1, now: h.now });
    h.createSession({ ID: S2, Namespace: "team", Checks: [] });
    setSerf(h, "critical");
    expect(h.store.view().sessionGet(S2, "team").value).toBeDefined();
  });
});
