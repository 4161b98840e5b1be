import { describe, expect, it } from "vitest";
import { planFormation } from "../../../src/server/formation-plan.js";
import type { ServerInfo } from "../../../src/server/join/protocol.js";

const server = (id: string, extra: Partial<ServerInfo> = {}): ServerInfo => ({
  id,
  name: `n-${id}`,
  datacenter: "dc1",
  rpcAddress: `10.0.0.${id}:8300`,
  joinAddress: `10.0.0.${id}:8301`,
  hasState: false,
  voters: {},
  leader: null,
  ...extra,
});

describe("planFormation (bootstrap_expect)", () => {
  it("waits until the expected number of servers, itself included, is known", () => {
    expect(planFormation(server("1"), 3, [server("2")])).toEqual({ kind: "wait", known: 2 });
  });

  it("bootstraps with every known server sorted by id, the same set on every server", () => {
    const a = planFormation(server("2"), 3, [server("3"), server("1")]);
    const b = planFormation(server("3"), 3, [server("1"), server("2")]);
    expect(a).toEqual(b);
    expect(a).toEqual({
      kind: "bootstrap",
      voters: { "1": "10.0.0.1:8300", "2": "10.0.0.2:8300", "3": "10.0.0.3:8300" },
    });
  });

  it("joins instead once any peer has Raft state", () => {
    expect(planFormation(server("1"), 3, [server("2", { hasState: true }), server("3")])).toEqual({
      kind: "join",
    });
  });

  it("does not count servers of another datacenter or itself twice", () => {
    const plan = planFormation(server("1"), 3, [
      server("1"),
      server("2"),
      server("3", { datacenter: "dc2" }),
    ]);
    expect(plan).toEqual({ kind: "wait", known: 2 });
  });
});
