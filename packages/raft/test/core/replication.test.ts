import { describe, expect, it } from "vitest";
import { encodeConfEntry } from "../../src/core/conf.js";
import { RaftCore } from "../../src/core/raft.js";
import type { Entry, Message } from "../../src/core/types.js";
import { bytes, carryOut, config, EMPTY_RESTORE, TestCluster } from "./harness.js";

const voters = { voters: ["a", "b", "c"], learners: [] };

function entry(index: number, term: number, data = `${index}@${term}`): Entry {
  return { index, term, kind: "normal", data: bytes(data) };
}

function follower(): RaftCore {
  const core = new RaftCore(config("a"), EMPTY_RESTORE, voters);
  carryOut(core);
  return core;
}

function append(prevIndex: number, prevTerm: number, entries: Entry[], commit: number, term = 3): Message {
  return { type: "append", from: "b", to: "a", term, prevIndex, prevTerm, entries, commit, sent: 0 };
}

function out(core: RaftCore) {
  return carryOut(core);
}

describe("AppendEntries (Figure 2: receiver implementation)", () => {
  it("rejects when the log has no entry at prevIndex with prevTerm, with a backtracking hint", () => {
    const core = follower();
    core.step(append(1, 1, [entry(2, 1), entry(3, 1)], 1, 1));
    out(core);
    core.step(append(5, 3, [entry(6, 3)], 1));
    expect(out(core).sent[0]).toMatchObject({
      type: "append-resp",
      reject: true,
      index: 5,
      hintIndex: 3,
      hintTerm: 1,
    });
    core.step(append(3, 2, [entry(4, 2)], 1));
    // Entry 3 has term 1 <= 2: the leader can skip straight to its last index with term <= 1.
    expect(out(core).sent[0]).toMatchObject({ reject: true, index: 3, hintIndex: 3, hintTerm: 1 });
  });

  it("truncates a conflicting suffix and appends the leader's entries; the Ready replaces the durable suffix", () => {
    const core = follower();
    core.step(append(1, 1, [entry(2, 1), entry(3, 1), entry(4, 1)], 1, 1));
    out(core);
    core.step(append(2, 1, [entry(3, 3), entry(4, 3)], 1));
    const r = out(core);
    expect(r.entries.map((e) => `${e.index}@${e.term}`)).toEqual(["3@3", "4@3"]);
    expect(r.sent[0]).toMatchObject({ reject: false, index: 4 });
    expect(core.entryAt(3)?.term).toBe(3);
  });

  it("keeps entries after a stale, shorter append that matches (no truncation without conflict)", () => {
    const core = follower();
    core.step(append(1, 1, [entry(2, 3), entry(3, 3), entry(4, 3)], 1));
    out(core);
    core.step(append(1, 1, [entry(2, 3)], 1));
    const r = out(core);
    expect(r.entries).toEqual([]);
    expect(r.sent[0]).toMatchObject({ reject: false, index: 2 });
    expect(core.status().lastIndex).toBe(4);
  });

  it("ignores a malformed append (gaps, terms going back or beyond the sender's) instead of corrupting the log", () => {
    const core = follower();
    core.step(append(1, 1, [entry(3, 3)], 1));
    core.step(append(1, 1, [entry(2, 3), entry(3, 2)], 1));
    core.step(append(1, 1, [entry(2, 9)], 1));
    expect(out(core).sent).toEqual([]);
    expect(core.status().lastIndex).toBe(1);
  });

  it("sets commit to min(leaderCommit, index of last new entry)", () => {
    const core = follower();
    // Entries 4 and 5 may be a stale suffix the leader has not looked at yet: never commit past the new ones.
    core.step(append(1, 1, [entry(2, 2), entry(3, 2), entry(4, 2), entry(5, 2)], 1, 2));
    out(core);
    core.step(append(1, 1, [entry(2, 2), entry(3, 2)], 9));
    const r = out(core);
    expect(r.hardState?.commit).toBe(3);
    expect(r.committed.map((e) => e.index)).toEqual([2, 3]);
    core.step(append(1, 1, [entry(2, 2)], 9));
    expect(core.status().commit).toBe(3); // never decreases
  });
});

describe("leaders (Figure 2)", () => {
  it("append a noop at the start of their term and commit it with a majority", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    const e = c.get("a").entryAt(2);
    expect(e).toMatchObject({ index: 2, term: 2, kind: "noop" });
    expect(c.get("a").status().commit).toBe(2);
    expect(c.get("c").status().commit).toBe(2);
  });

  it("commit an older term's entry only through an entry of their own term (Figure 8)", () => {
    // A server that led term 2 (and wrote 3@2) wins term 4; b acknowledges 3@2 first, the noop 4@4 later.
    const leader = new RaftCore(config("a"), {
      hardState: { term: 3, vote: null, commit: 1 },
      snapshot: null,
      entries: [
        { index: 1, term: 1, kind: "conf", data: encodeConfEntry({ change: null, conf: voters }) },
        entry(2, 1),
        entry(3, 2),
      ],
    });
    for (let i = 0; i < 10; i++) leader.tick();
    out(leader);
    leader.step({ type: "vote-resp", from: "b", to: "a", term: 4, reject: false });
    expect(leader.status()).toMatchObject({ role: "leader", term: 4, lastIndex: 4 });
    out(leader);
    // b acknowledges only through 3 (the old-term entry): a majority holds 3, but it stays uncommitted.
    leader.step({
      type: "append-resp",
      from: "b",
      to: "a",
      term: 4,
      index: 3,
      reject: false,
      hintIndex: 0,
      hintTerm: 0,
      sent: 0,
    });
    expect(leader.status().commit).toBe(1);
    leader.step({
      type: "append-resp",
      from: "b",
      to: "a",
      term: 4,
      index: 4,
      reject: false,
      hintIndex: 0,
      hintTerm: 0,
      sent: 0,
    });
    expect(leader.status().commit).toBe(4);
  });

  it("refuse proposals unless leader, and tell where the leader is", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    expect(c.get("b").propose(bytes("x"))).toEqual({ error: "not-leader", leader: "a" });
    expect(c.get("a").propose(bytes("x"))).toEqual({ index: 3, term: 2 });
  });

  it("refuse a proposal while maxUncommittedEntries are uncommitted, but never a membership change", () => {
    const c = new TestCluster(["a", "b", "c"], { maxUncommittedEntries: 3 });
    c.elect("a");
    const a = c.get("a");
    // The followers hear heartbeats but no entries: the leader keeps its lease and cannot commit.
    c.drop = (m) => m.type === "append" && m.entries.length > 0;
    for (let i = 0; i < 3; i++) expect(a.propose(bytes(`p${i}`))).toMatchObject({ term: 2 });
    c.deliver();
    expect(a.propose(bytes("p3"))).toEqual({ error: "too-many-uncommitted", leader: "a" });
    expect(a.proposeConfChange({ op: "add-learner", node: "d" })).toMatchObject({ index: 6 });
    c.drop = () => false;
    for (let i = 0; i < 30 && a.status().commit < 6; i++) c.tick("a");
    c.deliver();
    expect(a.status().commit).toBe(6);
    expect(a.propose(bytes("p4"))).toEqual({ index: 7, term: 2 });
  });

  it("batch proposals made before ready() into one append per follower (group commit)", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    const a = c.get("a");
    for (let i = 0; i < 5; i++) a.propose(bytes(`p${i}`));
    const r = carryOut(a);
    const appends = r.messages.filter((m) => m.type === "append");
    expect(appends).toHaveLength(2);
    expect(appends.map((m) => (m.type === "append" ? m.entries.length : 0))).toEqual([5, 5]);
    expect(r.entries).toHaveLength(5);
    c.net.push(...r.sent);
    c.deliver();
    expect(c.dataOf("c")).toEqual(["p0", "p1", "p2", "p3", "p4"]);
  });

  it("pipeline at most maxInflight appends to a follower in replicate state, and respect maxAppendBytes", () => {
    const c = new TestCluster(["a", "b", "c"], { maxInflight: 2, maxAppendBytes: 2 });
    c.elect("a");
    const a = c.get("a");
    const held: Message[] = [];
    for (let i = 0; i < 6; i++) {
      a.propose(bytes("xy"));
      held.push(...c.take((m) => m.type === "append" && m.to === "b" && m.entries.length > 0));
    }
    expect(held).toHaveLength(2);
    expect(held.every((m) => m.type === "append" && m.entries.length === 1)).toBe(true);
    expect(a.status().progress?.b).toMatchObject({ state: "replicate", inflight: 2 });
    c.net.push(...held);
    c.deliver();
    expect(c.dataOf("b")).toHaveLength(6);
    expect(a.status().progress?.b).toMatchObject({ match: 8, inflight: 0 });
  });

  it("find a diverged follower's match point in one round trip and overwrite its uncommitted suffix", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    c.drop = (m) => m.from === "a" || m.to === "a";
    for (let i = 0; i < 30; i++) c.get("a").propose(bytes(`lost${i}`));
    c.deliver();
    c.elect("b");
    c.get("b").propose(bytes("after"));
    c.deliver();
    c.drop = () => false;
    const rejections: Message[] = [];
    const drop = c.drop;
    c.drop = (m) => {
      if (m.type === "append-resp" && m.reject) rejections.push(m);
      return drop(m);
    };
    c.tick("b");
    c.deliver();
    expect(c.get("a").status()).toMatchObject({ role: "follower", leader: "b", term: 3 });
    expect(c.dataOf("a")).toEqual(["after"]);
    expect(c.get("a").status().lastIndex).toBe(c.get("b").status().lastIndex);
    expect(rejections.length).toBeLessThanOrEqual(1);
  });

  it("ignore duplicated and reordered answers: match never moves back", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    const a = c.get("a");
    a.propose(bytes("x"));
    a.propose(bytes("y"));
    c.deliver();
    const resp = (index: number, reject = false): Message => ({
      type: "append-resp",
      from: "b",
      to: "a",
      term: 2,
      index,
      reject,
      hintIndex: reject ? 1 : 0,
      hintTerm: reject ? 1 : 0,
      sent: 0,
    });
    a.step(resp(2));
    a.step(resp(4));
    a.step(resp(3));
    expect(a.status().progress?.b).toMatchObject({ match: 4, state: "replicate" });
    // A stale rejection of an index already matched changes nothing either.
    a.step(resp(3, true));
    expect(a.status().progress?.b).toMatchObject({ match: 4, next: 5, state: "replicate" });
  });

  it("keep pipelining to a follower with appends in flight however often heartbeats are answered", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    const a = c.get("a");
    const inFlight: Message[] = [];
    c.drop = (m) => m.to === "b" && m.type === "append" && inFlight.push(m) > 0;
    a.propose(bytes("x"));
    for (let i = 0; i < 5; i++) {
      a.readIndex(`r${i}`);
      c.deliver();
    }
    c.tick("a");
    c.deliver();
    expect(a.status().progress?.b).toMatchObject({ state: "replicate", match: 2, inflight: 1 });
    c.drop = () => false;
    for (const m of inFlight) c.get("b").step(m);
    c.deliver();
    expect(a.status().progress?.b).toMatchObject({ state: "replicate", match: 3, inflight: 0 });
  });

  it("probe again a follower that stays behind without progress for two heartbeat intervals (lost appends)", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    c.get("a").propose(bytes("x"));
    c.take((m) => m.to === "b" && m.type === "append");
    for (let i = 0; i < 3; i++) {
      c.tick("a");
      c.deliver();
    }
    expect(c.dataOf("b")).toEqual(["x"]);
  });

  it("fall back to probing a follower the transport reports unreachable", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    expect(c.get("a").status().progress?.b?.state).toBe("replicate");
    c.get("a").reportUnreachable("b");
    expect(c.get("a").status().progress?.b?.state).toBe("probe");
  });

  it("restart from the durable state with the same log, term, vote and configuration", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    c.get("a").propose(bytes("x"));
    c.deliver();
    const b2 = new RaftCore(config("b"), c.durable("b"));
    expect(b2.status()).toMatchObject({
      term: 2,
      vote: "a",
      commit: 3,
      lastIndex: 3,
      conf: voters,
      role: "follower",
    });
  });
});
