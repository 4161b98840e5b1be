import { describe, expect, it } from "vitest";
import { RaftCore } from "../../src/core/raft.js";
import type { Entry, Message } from "../../src/core/types.js";
import { bytes, carryOut, config, EMPTY_RESTORE, TestCluster } from "./harness.js";

// The Ready contract around writes (see Ready in types.ts): what may leave before a write is durable,
// what waits for it, and what a server counts and applies meanwhile.

const voters = { voters: ["a", "b", "c"], learners: [] };

function entry(index: number, term: number): Entry {
  return { index, term, kind: "normal", data: bytes(`${index}@${term}`) };
}

function follower(): RaftCore {
  const core = new RaftCore(config("a"), EMPTY_RESTORE, voters);
  carryOut(core);
  return core;
}

function append(
  prevIndex: number,
  prevTerm: number,
  entries: Entry[],
  commit: number,
  term: number,
): Message {
  return { type: "append", from: "b", to: "a", term, prevIndex, prevTerm, entries, commit, sent: 0 };
}

const at = (es: Entry[]) => es.map((e) => `${e.index}@${e.term}`);

/** A three-server cluster led by `a`, whose Readys the test carries out by hand from here on. */
function ledByA(): { c: TestCluster; a: RaftCore; index: number } {
  const c = new TestCluster(["a", "b", "c"]);
  c.elect("a");
  c.held.add("a");
  const a = c.get("a");
  const res = a.propose(bytes("x"));
  if (!("index" in res)) throw new Error("proposal refused");
  return { c, a, index: res.index };
}

describe("writes and what depends on them", () => {
  it("a leader sends its appends before its own write is durable, but counts itself only after", () => {
    const { c, a, index } = ledByA();
    const write = a.ready();
    expect(write.persist).toBe(true);
    expect(at(write.entries)).toEqual([`${index}@2`]);
    const appends = write.messages.filter((m) => m.type === "append");
    expect(appends.map((m) => m.to).sort()).toEqual(["b", "c"]);

    c.net.push(appends.find((m) => m.to === "b")!);
    c.deliver();
    // b's durable ack alone is not a majority of three while a's own copy is still being written.
    expect(a.status().commit).toBe(index - 1);
    a.persisted(write);
    expect(a.status().commit).toBe(index);
    expect(a.ready().committed.map((e) => e.index)).toEqual([index]);
  });

  it("the followers' acks commit without the leader's write, which it still needs before applying", () => {
    const { c, a, index } = ledByA();
    const write = a.ready();
    c.net.push(...write.messages);
    c.deliver();
    expect(a.status().commit).toBe(index);
    const during = a.ready();
    expect(during.persist).toBe(false);
    expect(during.committed).toEqual([]);
    // The new commit index goes out at once.
    expect(during.messages.filter((m) => m.type === "append" && m.commit === index)).toHaveLength(2);
    a.persisted(write);
    expect(a.ready().committed.map((e) => e.index)).toEqual([index]);
  });

  it("entries already durable apply while a later write is in flight, and proposals wait for the next write", () => {
    const { c, a, index } = ledByA();
    const first = a.ready();
    a.persisted(first);
    a.propose(bytes("y"));
    const second = a.ready();
    expect(second.persist).toBe(true);
    expect(second.entries.map((e) => e.index)).toEqual([index + 1]);
    a.propose(bytes("z"));
    c.net.push(...first.messages);
    c.deliver();
    const during = a.ready();
    expect(during.persist).toBe(false);
    expect(during.entries).toEqual([]);
    expect(during.committed.map((e) => e.index)).toEqual([index]);
    a.persisted(second);
    expect(a.ready().entries.map((e) => e.index)).toEqual([index + 2]);
  });

  it("a follower's acks wait for the write of what they acknowledge; heartbeats are answered at once", () => {
    const f = follower();
    f.step(append(1, 1, [entry(2, 1)], 1, 1));
    const w1 = f.ready();
    expect(w1.persist).toBe(true);
    expect(w1.messages).toEqual([]);
    expect(w1.persistedMessages).toMatchObject([{ type: "append-resp", reject: false, index: 2 }]);

    f.step({ type: "heartbeat", from: "b", to: "a", term: 1, commit: 1, sent: 0, read: 0 });
    f.step(append(2, 1, [entry(3, 1)], 2, 1));
    const during = f.ready();
    expect(during.persist).toBe(false);
    expect(during.messages).toMatchObject([{ type: "heartbeat-resp" }]);
    // Entry 2 is committed but not yet on disk here.
    expect(during.committed).toEqual([]);

    f.persisted(w1);
    const w2 = f.ready();
    expect(w2.committed.map((e) => e.index)).toEqual([2]);
    expect(at(w2.entries)).toEqual(["3@1"]);
    expect(w2.persistedMessages).toMatchObject([{ type: "append-resp", reject: false, index: 3 }]);
  });

  it("an entry replaced during its write does not count as durable when the write finishes", () => {
    const f = follower();
    f.step(append(1, 1, [entry(2, 1), entry(3, 1), entry(4, 1)], 1, 1));
    const w1 = f.ready();
    // A new leader replaces 3 and 4 while they are being written, and has committed its 3.
    f.step(append(2, 1, [entry(3, 3)], 3, 3));
    f.persisted(w1);
    const w2 = f.ready();
    expect(w2.committed.map((e) => e.index)).toEqual([2]);
    expect(at(w2.entries)).toEqual(["3@3"]);
    f.persisted(w2);
    expect(at(f.ready().committed)).toEqual(["3@3"]);
  });

  it("a candidate's vote requests wait for the write of its vote for itself", () => {
    const core = follower();
    for (let i = 0; i < 20 && core.status().role !== "candidate"; i++) core.tick();
    const r = core.ready();
    expect(r.messages).toEqual([]);
    expect(r.hardState).toMatchObject({ term: 2, vote: "a" });
    expect(r.persistedMessages.map((m) => `${m.type}>${m.to}`)).toEqual(["vote>b", "vote>c"]);
  });
});
