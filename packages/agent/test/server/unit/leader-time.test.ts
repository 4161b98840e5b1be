import {
  type AclPolicySpec,
  type AclTokenSpec,
  COMMAND_VERSION,
  type Command,
  decodeCommand,
  encodeCommand,
} from "@cairn/fsm";
import { describe, expect, it } from "vitest";
import { stampForwardedEntry, stampLeaderTime, type TimedCommand } from "../../../src/server/leader-time.js";
import { encodeRestoreEntry } from "../../../src/server/restore-entry.js";

const v = COMMAND_VERSION;
const RECEIVED = 1_000_000;
const LEADER = 4_600_000;
const value = new Uint8Array([1, 2]);
const session = "7f5d0a4e-0000-4000-8000-000000000001";

// Stamping never looks inside a command's records: opaque stand-ins are enough.
const token = { AccessorID: "a0000000-0000-4000-8000-000000000001" } as AclTokenSpec;
const policy = { ID: "00000000-0000-0000-0000-000000000001" } as AclPolicySpec;

/** One command of every kind that carries a time: the compiler insists on each. */
const timed: { readonly [K in TimedCommand["type"]]: Extract<TimedCommand, { type: K }> } = {
  "kv.lock": { v, type: "kv.lock", key: "k", value, flags: 0n, session, now: RECEIVED },
  "session.create": {
    v,
    type: "session.create",
    session: { ID: session, Node: "n1", LockDelay: 15e9 },
    now: RECEIVED,
  },
  "session.destroy": { v, type: "session.destroy", id: session, now: RECEIVED },
  "session.invalidate": { v, type: "session.invalidate", id: session, now: RECEIVED },
  txn: {
    v,
    type: "txn",
    ops: [{ KV: { Verb: "lock", Key: "k", Value: value, Session: session } }],
    now: RECEIVED,
  },
  "catalog.register": {
    v,
    type: "catalog.register",
    registration: { Node: "n1", Address: "10.0.0.1" },
    now: RECEIVED,
  },
  "catalog.deregister": { v, type: "catalog.deregister", node: "n1", now: RECEIVED },
  "acl.token.set": { v, type: "acl.token.set", op: "create", token, now: RECEIVED },
  "acl.bootstrap": { v, type: "acl.bootstrap", token, policy, now: RECEIVED },
  "acl.init": { v, type: "acl.init", policy, anonymous: token, now: RECEIVED },
  "namespace.delete": { v, type: "namespace.delete", name: "team", now: RECEIVED },
  "namespace.purge": { v, type: "namespace.purge", name: "team", now: RECEIVED },
};

describe("stampLeaderTime", () => {
  for (const command of Object.values(timed)) {
    it(`${command.type}: takes the leader's time and keeps everything else`, () => {
      const stamped = stampLeaderTime(command, LEADER);
      expect(stamped).toEqual({ ...command, now: LEADER });
      expect(command.now).toBe(RECEIVED);
    });
  }

  it("leaves commands without a time as they are", () => {
    const untimed: Command[] = [
      { v, type: "kv.set", key: "k", value, flags: 0n },
      { v, type: "kv.unlock", key: "k", value, flags: 0n, session },
      { v, type: "tombstone.reap", index: 9 },
      { v, type: "acl.token.delete", accessors: [token.AccessorID] },
    ];
    for (const command of untimed) expect(stampLeaderTime(command, LEADER)).toBe(command);
  });
});

describe("stampForwardedEntry", () => {
  it("re-stamps the encoded timed commands a follower forwards", () => {
    for (const command of [timed["kv.lock"], timed["session.create"], timed.txn, timed["session.destroy"]]) {
      const stamped = decodeCommand(stampForwardedEntry(encodeCommand(command), LEADER));
      expect(stamped).toEqual(decodeCommand(encodeCommand({ ...command, now: LEADER })));
    }
  });

  it("passes untimed commands, restore entries and undecodable bytes through unchanged", () => {
    const untimed = encodeCommand({ v, type: "kv.set", key: "k", value, flags: 2n ** 64n - 1n });
    expect(stampForwardedEntry(untimed, LEADER)).toBe(untimed);
    // The key "now" in a value is not a time field: decoded, found untimed, passed through.
    const nowKey = encodeCommand({ v, type: "kv.set", key: "now", value, flags: 0n });
    expect(stampForwardedEntry(nowKey, LEADER)).toBe(nowKey);
    const restore = encodeRestoreEntry(new Uint8Array([0, 0, 0, 0]));
    expect(stampForwardedEntry(restore, LEADER)).toBe(restore);
    const garbage = new Uint8Array([0x92, 0x01]);
    expect(stampForwardedEntry(garbage, LEADER)).toBe(garbage);
  });
});
