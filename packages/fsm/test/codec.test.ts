import { describe, expect, it } from "vitest";
import { type Command, decodeCommand, encodeCommand } from "../src/index.js";
import { bytes } from "./helpers.js";

const now = 1_700_000_000_123;
const SAMPLES: Command[] = [
  { v: 1, type: "kv.set", ns: "team", key: "a/b", value: bytes("v"), flags: 2n ** 64n - 1n },
  { v: 1, type: "kv.cas", key: "a", value: bytes(""), flags: 0n, index: 7 },
  { v: 1, type: "kv.delete", key: "a" },
  { v: 1, type: "kv.delete-tree", prefix: "a/" },
  { v: 1, type: "kv.delete-cas", key: "a", index: 3 },
  { v: 1, type: "kv.lock", key: "l", value: bytes("x"), flags: 1n, session: "s", now },
  { v: 1, type: "kv.unlock", key: "l", value: bytes("x"), flags: 0n, session: "s" },
  {
    v: 1,
    type: "session.create",
    session: {
      ID: "s",
      Node: "n",
      Name: "x",
      Checks: ["serfHealth"],
      LockDelay: 15e9,
      Behavior: "delete",
      TTL: "30s",
    },
    now,
    ttlMinNs: 1e9,
  },
  { v: 1, type: "session.destroy", id: "s", now },
  { v: 1, type: "session.invalidate", ns: "team", id: "s", now },
  {
    v: 1,
    type: "txn",
    now,
    ops: [
      { KV: { Verb: "cas", Key: "k", Value: bytes("v"), Flags: 9n, Index: 2, Namespace: "team" } },
      { KV: { Verb: "check-session", Key: "k", Session: "s" } },
      {
        Node: { Verb: "set", Node: { ID: "id", Node: "n", Address: "a", Meta: { m: "1" }, ModifyIndex: 4 } },
      },
      { Service: { Verb: "delete-cas", Node: "n", Service: { ID: "s", Service: "web", ModifyIndex: 5 } } },
      { Check: { Verb: "get", Check: { Node: "n", CheckID: "c" } } },
    ],
  },
  {
    v: 1,
    type: "catalog.register",
    now,
    registration: {
      ID: "id",
      Node: "n",
      Address: "10.0.0.1",
      Datacenter: "dc1",
      TaggedAddresses: { lan: "10.0.0.1" },
      NodeMeta: { rack: "r1" },
      SkipNodeUpdate: true,
      Service: {
        ID: "web-1",
        Service: "web",
        Tags: ["a"],
        Address: "10.0.0.2",
        TaggedAddresses: { wan: { Address: "1.2.3.4", Port: 80 } },
        Meta: { v: "1" },
        Port: 8080,
        Kind: "connect-proxy",
        Proxy: { DestinationServiceName: "api" },
        Connect: { Native: false },
        EnableTagOverride: true,
        Weights: { Passing: 3, Warning: 1 },
        Namespace: "team",
      },
      Check: {
        CheckID: "c",
        Name: "c",
        Status: "warning",
        Notes: "n",
        Output: "o",
        ServiceID: "web-1",
        Type: "http",
      },
      Checks: [{ Name: "d", Definition: { HTTP: "http://x", Interval: "10s" } }],
    },
  },
  { v: 1, type: "catalog.deregister", ns: "team", node: "n", serviceID: "web-1", now },
  {
    v: 1,
    type: "coordinate.batch-update",
    updates: [
      { Node: "n", Segment: "s", Coord: { Vec: [0.1, -2], Error: 1.5, Adjustment: 0.01, Height: 1e-5 } },
    ],
  },
  { v: 1, type: "tombstone.reap", index: 42 },
];

/** Decoders spell out optional fields as undefined; compare what is actually set. */
function defined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(defined);
  if (value instanceof Uint8Array) return [...value];
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, defined(v)]),
    );
  }
  return value;
}

describe("command codec", () => {
  it.each(SAMPLES.map((c) => [c.type, c] as const))("%s survives encode and decode", (_, command) => {
    expect(defined(decodeCommand(encodeCommand(command)))).toEqual(defined(command));
  });

  it("covers every command type", () => {
    expect(new Set(SAMPLES.map((c) => c.type)).size).toBe(15);
  });
});
