import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  COMMAND_VERSION,
  type Command,
  encodeCommand,
  encodeCommandEntry,
  encodeRestoreEntry,
  StateStore,
} from "@cairn/fsm";
import { afterAll, describe, expect, it } from "vitest";
import { FsmStateMachine } from "../../../src/server/fsm-state-machine.js";

/** A whole-archive restore entry as earlier versions wrote it to the log: 0xc1, then the archive. */
const legacyRestoreEntry = (archive: Uint8Array): Uint8Array => Buffer.concat([Buffer.from([0xc1]), archive]);

const dir = mkdtempSync(join(tmpdir(), "cairn-fsm-sm-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const set = (key: string, value: string): Command => ({
  v: COMMAND_VERSION,
  type: "kv.set",
  key,
  value: Buffer.from(value),
  flags: 0n,
});

async function snapshotBytes(sm: FsmStateMachine): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  await sm.snapshot({ write: async (c) => void chunks.push(c) });
  return Buffer.concat(chunks);
}

describe("FsmStateMachine", () => {
  it("applies commands and tells its listener what was applied", () => {
    const sm = new FsmStateMachine();
    const seen: string[] = [];
    sm.listen({ applied: (c) => void seen.push(c.type), restored: () => void seen.push("restored") });
    expect(sm.apply(1, encodeCommand(set("a", "1")))).toBe(true);
    expect(seen).toEqual(["kv.set"]);
    expect(sm.store.view().kvGet("a").value?.ModifyIndex).toBe(1);
  });

  it("writes a Raft snapshot a fresh state machine restores from the file", async () => {
    const sm = new FsmStateMachine();
    sm.apply(3, encodeCommand(set("a", "1")));
    sm.apply(4, encodeCommand(set("b", "2")));
    const file = join(dir, "snap");
    writeFileSync(file, await snapshotBytes(sm));
    const other = new FsmStateMachine();
    await other.restore(file);
    expect(other.store.index).toBe(4);
    expect(other.store.view().kvKeys("").value).toEqual(["a", "b"]);
  });

  it("applies a restore entry of an earlier version at its own index, whatever index the archive was taken at", async () => {
    const source = new FsmStateMachine();
    source.apply(90, encodeCommand(set("old", "x")));
    const archive = await snapshotBytes(source);
    const entry = legacyRestoreEntry(archive);

    const sm = new FsmStateMachine();
    sm.apply(5, encodeCommand(set("gone", "y")));
    let restored = 0;
    sm.listen({ applied: () => {}, restored: () => void restored++ });
    expect(sm.apply(7, entry)).toBe(true);
    expect(restored).toBe(1);
    expect(sm.store.index).toBe(7);
    expect(sm.store.view().kvKeys("").value).toEqual(["old"]);
    // The log carries on above the restore.
    sm.apply(8, encodeCommand(set("next", "z")));
    expect(sm.store.view().kvGet("next").value?.ModifyIndex).toBe(8);
  });

  it("refuses a malformed restore entry without changing anything", () => {
    const sm = new FsmStateMachine();
    sm.apply(1, encodeCommand(set("keep", "1")));
    expect(() => sm.apply(2, legacyRestoreEntry(Buffer.from("not a snapshot")))).toThrow();
    expect(sm.store.view().kvKeys("").value).toEqual(["keep"]);
    expect(new StateStore().index).toBe(0);
  });

  it("applies a streamed restore at its commit, telling the listener once", async () => {
    const source = new FsmStateMachine();
    source.apply(40, encodeCommandEntry(set("old", "x")));
    const archive = await snapshotBytes(source);
    const sm = new FsmStateMachine();
    const seen: string[] = [];
    sm.listen({ applied: (c) => void seen.push(c.type), restored: () => void seen.push("restored") });
    expect(sm.apply(1, encodeCommandEntry(set("gone", "y")))).toBe(true);
    expect(sm.apply(2, encodeRestoreEntry({ kind: "restore-begin", id: "r" }))).toBe(true);
    expect(sm.apply(3, encodeRestoreEntry({ kind: "restore-chunk", id: "r", seq: 0, data: archive }))).toBe(
      true,
    );
    expect(sm.store.view().kvKeys("").value).toEqual(["gone"]);
    const commit = encodeRestoreEntry({
      kind: "restore-commit",
      id: "r",
      chunks: 1,
      bytes: archive.byteLength,
    });
    expect(sm.apply(4, commit)).toBe(true);
    expect(seen).toEqual(["kv.set", "restored"]);
    expect(sm.store.index).toBe(4);
    expect(sm.store.view().kvKeys("").value).toEqual(["old"]);
  });
});
