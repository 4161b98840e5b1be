import { describe, expect, it } from "vitest";
import {
  type AclPolicySpec,
  type AclTokenSpec,
  COMMAND_VERSION,
  type Command,
  CommandDecodeError,
  decodeEntry,
  encodeCommand,
  encodeCommandEntry,
  encodeRestoreEntry,
  type RestoreEntry,
  stampLeaderTime,
  type TimedCommand,
} from "../src/index.js";

const v = COMMAND_VERSION;
const RECEIVED = 1_000_000;
const LEADER = 4_600_000;
const value = new Uint8Array([1, 2]);
const session = "7f5d0a4e-0000-4000-8000-000000000001";

// The fewest fields the decoder accepts: stamping never looks inside a command's records.
const token = { AccessorID: "a0000000-0000-4000-8000-000000000001", SecretID: "s" } as AclTokenSpec;
const policy = { ID: "00000000-0000-0000-0000-000000000001", Name: "global-management" } as AclPolicySpec;

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

const commandOf = (entry: Uint8Array): Command => {
  const decoded = decodeEntry(entry);
  if (decoded.kind !== "command") throw new Error(`not a command entry: ${decoded.kind}`);
  return decoded.command;
};
/** What a command is once it went through the wire (Uint8Array values come back as Buffers). */
const roundTrip = (command: Command): Command => commandOf(encodeCommandEntry(command));

describe("stampLeaderTime", () => {
  for (const command of Object.values(timed)) {
    it(`${command.type}: takes the leader's time and keeps everything else`, () => {
      const entry = encodeCommandEntry(command);
      const stamped = stampLeaderTime(entry, LEADER);
      expect(commandOf(stamped)).toEqual(roundTrip({ ...command, now: LEADER }));
      // A copy: the entry it was given (a forwarded payload) is left as it was.
      expect(commandOf(entry)).toEqual(roundTrip(command));
      expect(command.now).toBe(RECEIVED);
    });
  }

  it("leaves commands without a time as they are", () => {
    const untimed: Command[] = [
      { v, type: "kv.set", key: "k", value, flags: 0n },
      { v, type: "kv.unlock", key: "k", value, flags: 0n, session },
      { v, type: "tombstone.reap", index: 9 },
      { v, type: "acl.token.delete", accessors: [token.AccessorID] },
      // The key "now" in a value is not a time field.
      { v, type: "kv.set", key: "now", value, flags: 2n ** 64n - 1n },
    ];
    for (const command of untimed) {
      expect(commandOf(stampLeaderTime(encodeCommandEntry(command), LEADER))).toEqual(roundTrip(command));
    }
  });

  it("the time is a fixed field: stamping does not decode, and an unstamped entry keeps its own now", () => {
    const entry = encodeCommandEntry(timed["kv.lock"]);
    const stamped = stampLeaderTime(entry, LEADER);
    expect(stamped.byteLength).toBe(entry.byteLength);
    // Only the eight time bytes differ.
    const differing = [...entry.keys()].filter((i) => entry[i] !== stamped[i]);
    expect(differing.every((i) => i >= 2 && i < 10)).toBe(true);
    expect((commandOf(entry) as TimedCommand).now).toBe(RECEIVED);
    expect((commandOf(encodeCommandEntry(timed["kv.lock"], LEADER)) as TimedCommand).now).toBe(LEADER);
  });

  it("wraps a bare command a server of an earlier version forwarded, stamped", () => {
    for (const command of [timed["kv.lock"], timed["session.create"], timed.txn, timed["session.destroy"]]) {
      const stamped = stampLeaderTime(encodeCommand(command), LEADER);
      expect(commandOf(stamped)).toEqual(roundTrip({ ...command, now: LEADER }));
    }
  });

  it("passes restore entries and undecodable bytes through unchanged", () => {
    const restore = encodeRestoreEntry({ kind: "restore-chunk", id: "r", seq: 0, data: value });
    expect(stampLeaderTime(restore, LEADER)).toBe(restore);
    const legacyRestore = new Uint8Array([0xc1, 0, 0, 0, 0]);
    expect(stampLeaderTime(legacyRestore, LEADER)).toBe(legacyRestore);
    const garbage = new Uint8Array([0x92, 0x01]);
    expect(stampLeaderTime(garbage, LEADER)).toBe(garbage);
  });
});

describe("log entry encoding", () => {
  it("decodes the entries earlier versions wrote: a bare command, and 0xc1 + archive", () => {
    const command = timed["session.create"];
    expect(commandOf(encodeCommand(command))).toEqual(roundTrip(command));
    const archive = new Uint8Array([0, 0, 0, 1, 0x90]);
    const legacy = new Uint8Array([0xc1, ...archive]);
    expect(decodeEntry(legacy)).toEqual({ kind: "restore", archive });
  });

  it("round-trips every restore entry kind", () => {
    const entries: RestoreEntry[] = [
      { kind: "restore-begin", id: "r1" },
      { kind: "restore-chunk", id: "r1", seq: 3, data: new Uint8Array([1, 2, 3]) },
      { kind: "restore-commit", id: "r1", chunks: 4, bytes: 1 << 30 },
      { kind: "restore-abort", id: "r1" },
    ];
    for (const entry of entries) expect(decodeEntry(encodeRestoreEntry(entry))).toEqual(entry);
  });

  it("refuses what is no entry", () => {
    const chunk = encodeRestoreEntry({ kind: "restore-chunk", id: "r", seq: 0, data: value });
    const unknownKind = Uint8Array.from(chunk);
    unknownKind[1] = 99;
    const malformed = Uint8Array.from(
      encodeRestoreEntry({ kind: "restore-commit", id: "r", chunks: 1, bytes: 1 }),
    );
    malformed[malformed.byteLength - 1] = 0xc0; // bytes: nil
    for (const bad of [
      new Uint8Array([1, 1, 0]),
      unknownKind,
      malformed,
      new Uint8Array([0x92, 1]),
      chunk.subarray(0, 12),
    ]) {
      expect(() => decodeEntry(bad)).toThrow(CommandDecodeError);
    }
  });
});
