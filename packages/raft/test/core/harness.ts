import { RaftCore } from "../../src/core/raft.js";
import type {
  ConfState,
  Entry,
  LogFetch,
  Message,
  RaftConfig,
  ReadState,
  Ready,
  RestoreState,
} from "../../src/core/types.js";

export const EMPTY_RESTORE: RestoreState = {
  hardState: { term: 0, vote: null, commit: 0 },
  snapshot: null,
  entries: [],
};

export function config(id: string, over: Partial<RaftConfig> = {}): RaftConfig {
  return {
    id,
    electionTicks: 10,
    heartbeatTicks: 1,
    random: () => 0,
    preVote: false,
    checkQuorum: false,
    maxInflight: 4,
    maxAppendBytes: 1 << 20,
    ...over,
  };
}

export const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

/**
 * Carry out one Ready as a driver whose writes finish at once: `sent` is everything it sent, in order
 * (the messages that could leave at once, then those that waited for the write).
 */
export function carryOut(core: RaftCore): Ready & { sent: Message[] } {
  const r = core.ready();
  core.advance(r);
  if (r.persist) core.persisted(r);
  return { ...r, sent: [...r.messages, ...r.persistedMessages] };
}

/**
 * A synchronous, in-memory harness for unit tests: every Ready is carried out at once (writes finish
 * at once, messages queue up in `net`), and tests decide which messages get delivered.
 */
export class TestCluster {
  readonly nodes = new Map<string, RaftCore>();
  readonly applied = new Map<string, Entry[]>();
  readonly reads = new Map<string, ReadState[]>();
  readonly readys = new Map<string, Ready[]>();
  net: Message[] = [];
  /** Messages matching this are dropped when delivered. */
  drop: (m: Message) => boolean = () => false;
  /** Nodes whose Readys the test takes and carries out itself (flush skips them). */
  readonly held = new Set<string>();

  constructor(ids: string[], over: Partial<RaftConfig> = {}, conf?: ConfState) {
    const bootstrap = conf ?? { voters: ids, learners: [] };
    for (const id of ids) this.add(new RaftCore(config(id, over), EMPTY_RESTORE, bootstrap));
    this.flush();
  }

  add(core: RaftCore): void {
    this.nodes.set(core.id, core);
    this.applied.set(core.id, []);
    this.reads.set(core.id, []);
    this.readys.set(core.id, []);
  }

  get(id: string): RaftCore {
    const n = this.nodes.get(id);
    if (!n) throw new Error(`no node ${id}`);
    return n;
  }

  /** Carry out every pending Ready. */
  flush(): void {
    for (const [id, core] of this.nodes) {
      if (this.held.has(id)) continue;
      for (let n = 0; core.hasReady(); n++) {
        if (n > 10_000) throw new Error(`${id} never runs out of Readys`);
        const r = carryOut(core);
        this.readys.get(id)!.push(r);
        this.net.push(...r.sent);
        this.applied.get(id)!.push(...r.committed);
        this.reads.get(id)!.push(...r.readStates);
        if (r.fetch) core.fetched(this.readBack(id, r.fetch));
      }
    }
  }

  /** Deliver queued messages (and what they trigger) until the network is quiet. */
  deliver(maxRounds = 100): void {
    for (let round = 0; round < maxRounds; round++) {
      this.flush();
      if (this.net.length === 0) return;
      const batch = this.net;
      this.net = [];
      for (const m of batch) {
        const to = this.nodes.get(m.to);
        if (to && !this.drop(m)) to.step(m);
      }
    }
    this.flush();
  }

  /** Take (and remove) queued messages matching `pred`. */
  take(pred: (m: Message) => boolean): Message[] {
    this.flush();
    const hit = this.net.filter(pred);
    this.net = this.net.filter((m) => !pred(m));
    return hit;
  }

  /** What `id`'s driver would have on disk after carrying out every Ready so far (no snapshots). */
  durable(id: string): RestoreState {
    const entries: Entry[] = [];
    let hardState: RestoreState["hardState"] = { term: 0, vote: null, commit: 0 };
    for (const r of this.readys.get(id)!) {
      const first = r.entries[0];
      if (first) entries.splice(first.index - 1, entries.length, ...r.entries);
      if (r.hardState) hardState = r.hardState;
    }
    return { hardState, snapshot: null, entries };
  }

  /** What `id`'s storage would answer to a Ready's `fetch`. */
  readBack(id: string, f: LogFetch): Entry[] {
    const out: Entry[] = [];
    let bytes = 0;
    for (const e of this.durable(id).entries.slice(f.lo - 1, f.hi - 1)) {
      if (e?.index !== f.lo + out.length) break;
      bytes += e.data.length;
      if (out.length > 0 && bytes > f.maxBytes) break;
      out.push(e);
    }
    return out;
  }

  /** Crash `id` and start it again from its durable state. */
  restart(id: string, over: Partial<RaftConfig> = {}): RaftCore {
    const core = new RaftCore(config(id, over), this.durable(id));
    this.nodes.set(id, core);
    return core;
  }

  tick(id: string, n = 1): void {
    for (let i = 0; i < n; i++) this.get(id).tick();
    this.flush();
  }

  /** Make `id` campaign (by ticking it past its election timeout) and deliver everything. */
  elect(id: string): void {
    const core = this.get(id);
    for (let i = 0; i < 100 && core.status().role !== "leader"; i++) {
      core.tick();
      this.deliver();
    }
    if (core.status().role !== "leader") throw new Error(`${id} did not become leader`);
  }

  dataOf(id: string): string[] {
    return this.applied
      .get(id)!
      .filter((e) => e.kind === "normal")
      .map((e) => new TextDecoder().decode(e.data));
  }
}
