import { describe, expect, it } from "vitest";
import { bytes, Harness } from "./helpers.js";

const refused = (ns: string, why: string) => ({ error: `Namespace "${ns}" ${why}`, kind: "invalid" });

describe("writes into namespaces that cannot take them", () => {
  it("a namespace that does not exist: refused, nothing stored, the entry still consumes its index", () => {
    const h = new Harness();
    expect(h.run("kv.set", { ns: "ghost", key: "k", value: bytes("v"), flags: 0n })).toEqual(
      refused("ghost", "does not exist"),
    );
    expect(h.store.view().kvList("", "*").value).toEqual([]);
    expect(h.store.view().index).toBe(1);
    h.set("fine", "v");
    expect(h.store.view().kvGet("fine").value?.ModifyIndex).toBe(2);
  });

  it("a namespace marked for deletion refuses new records but not deletes", () => {
    const h = new Harness().namespaces("team");
    expect(h.run("kv.set", { ns: "team", key: "k", value: bytes("v"), flags: 0n })).toBe(true);
    h.run("namespace.delete", { name: "team", now: h.now });
    expect(h.run("kv.set", { ns: "team", key: "k2", value: bytes("v"), flags: 0n })).toEqual(
      refused("team", "is being deleted"),
    );
    expect(
      h.run("session.create", {
        session: { ID: "11111111-1111-1111-1111-111111111111", Node: "n1", Namespace: "team" },
        now: h.now,
      }),
    ).toEqual(refused("team", "is being deleted"));
    expect(h.run("kv.delete", { ns: "team", key: "k" })).toBe(true);
  });

  it("service checks of a session, and catalog services, name their namespace", () => {
    const h = new Harness();
    h.registerNode("n1");
    expect(h.registerNode("n1", { Service: { Service: "web", Namespace: "ghost" } })).toEqual(
      refused("ghost", "does not exist"),
    );
    expect(
      h.createSession({
        ID: "11111111-1111-1111-1111-111111111111",
        ServiceChecks: [{ ID: "c", Namespace: "ghost" }],
      }),
    ).toEqual(refused("ghost", "does not exist"));
  });

  it("a transaction names the operation, and a refused one applies nothing", () => {
    const h = new Harness();
    const result = h.txn([
      { KV: { Verb: "set", Key: "a", Value: bytes("1") } },
      { KV: { Verb: "set", Key: "b", Value: bytes("1"), Namespace: "ghost" } },
      { KV: { Verb: "delete", Key: "c", Namespace: "ghost" } },
    ]);
    expect(result).toEqual({
      Results: null,
      Errors: [{ OpIndex: 1, What: 'Namespace "ghost" does not exist' }],
    });
    expect(h.store.view().kvGet("a").value).toBeUndefined();
  });
});
