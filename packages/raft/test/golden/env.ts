import { RaftCore } from "../../src/core/raft.js";
import type {
  ConfChangeOp,
  Entry,
  HardState,
  Message,
  NodeId,
  RaftConfig,
  RaftStatus,
  Ready,
  SnapshotMeta,
} from "../../src/core/types.js";
import { config, EMPTY_RESTORE } from "../core/harness.js";
import {
  byId,
  formatEntry,
  formatHardState,
  formatMessage,
  formatReady,
  formatSnapshot,
  formatStatus,
} from "./format.js";
import type { Command } from "./script.js";

/** What a node's driver has on disk: the only thing that survives `restart`. */
interface Disk {
  hardState: HardState;
  snapshot: SnapshotMeta | null;
  entries: Entry[];
}

interface Node {
  core: RaftCore;
  cfg: RaftConfig;
  disk: Disk;
  /** The state machine: the payloads of the normal entries applied, in order. */
  applied: string[];
  /** Messages sent to this node and not delivered yet, oldest first. */
  inbox: Message[];
  /** async-writes: a Ready whose write the scenario finishes itself (`persist`). */
  manualWrites: boolean;
  pendingWrite: Ready | null;
}

/** A usage mistake in a scenario file (not a Raft outcome): it fails the test instead of being printed. */
export class ScenarioError extends Error {}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const STABILIZE_ROUNDS = 1000;

/** The key=value options each command accepts (a misspelt one fails the scenario instead of being ignored). */
const OPTIONS: Record<string, readonly string[]> = {
  "add-nodes": [
    "voters",
    "learners",
    "prevote",
    "checkquorum",
    "random",
    "election",
    "heartbeat",
    "jitter",
    "retry",
    "max-inflight",
    "lease-drift",
    "async-writes",
  ],
  tick: ["n"],
  "read-index": ["lease"],
  "deliver-msgs": ["drop"],
};

/**
 * Drives RaftCore instances the way a real driver would (Readys carried out, writes made durable, messages
 * handed to a network), but one explicit step at a time, printing what each step did. Everything is
 * deterministic: randomness is a constant per scenario, and nodes are always visited in id order.
 */
export class Env {
  private readonly nodes = new Map<NodeId, Node>();
  /** Nodes cut off from every node outside this set (empty: no partition). */
  private cut = new Set<NodeId>();
  /** Snapshot contents by position, recorded at compaction: what a leader's driver would stream. */
  private readonly snapshots = new Map<string, string[]>();

  run(cmd: Command): string[] {
    const known = OPTIONS[cmd.name] ?? [];
    for (const key of cmd.opts.keys()) {
      if (!known.includes(key)) throw new ScenarioError(`${cmd.name} takes no option ${key}`);
    }
    const out: string[] = [];
    switch (cmd.name) {
      case "add-nodes":
        this.addNodes(cmd);
        break;
      case "campaign":
        this.campaign(this.id(cmd, 0), out);
        break;
      case "tick":
        this.tick(cmd, () => this.num(cmd, "n", cmd.opts.get("n") ?? "1"), out);
        break;
      case "tick-election":
        this.tick(cmd, (n) => n.cfg.electionTicks, out);
        break;
      case "tick-heartbeat":
        this.tick(cmd, (n) => n.cfg.heartbeatTicks, out);
        break;
      case "propose":
        this.propose(cmd, out);
        break;
      case "propose-conf-change":
        this.proposeConfChange(cmd, out);
        break;
      case "transfer-leadership": {
        const r = this.node(cmd, 0).core.transferLeadership(this.id(cmd, 1));
        if (r) out.push(`rejected ${r.error} leader=${r.leader ?? "none"}`);
        break;
      }
      case "read-index":
        this.node(cmd, 0).core.readIndex(this.arg(cmd, 1), { lease: cmd.opts.get("lease") === "true" });
        break;
      case "compact":
        this.compact(cmd, out);
        break;
      case "report-snapshot":
        this.node(cmd, 0).core.reportSnapshot(this.id(cmd, 1), this.arg(cmd, 2) === "ok");
        break;
      case "report-unreachable":
        this.node(cmd, 0).core.reportUnreachable(this.id(cmd, 1));
        break;
      case "process-ready":
        for (const id of this.ids(cmd)) this.processReady(id, out);
        break;
      case "persist":
        for (const id of this.ids(cmd)) this.finishWrite(id, out);
        break;
      case "deliver-msgs":
        for (const id of this.ids(cmd)) this.deliver(id, out, cmd.opts.get("drop") === "true");
        break;
      case "stabilize":
        this.stabilize(cmd.args.length > 0 ? this.ids(cmd) : this.allIds(), out);
        break;
      case "partition":
        this.cut = new Set(this.ids(cmd));
        break;
      case "heal":
        this.cut = new Set();
        break;
      case "restart":
        this.restart(this.id(cmd, 0));
        out.push(...this.statusLines(this.id(cmd, 0), false));
        break;
      case "status":
        for (const id of this.ids(cmd)) out.push(...this.statusLines(id, true));
        break;
      case "log":
        for (const id of this.ids(cmd)) this.log(id, out);
        break;
      case "applied":
        for (const id of this.ids(cmd)) out.push(`${id}: [${this.get(id).applied.join(", ")}]`);
        break;
      default:
        throw new ScenarioError(`unknown command ${cmd.name}`);
    }
    return out.length > 0 ? out : ["ok"];
  }

  // ---------------------------------------------------------------- setup

  /**
   * `add-nodes N [voters=(..)] [learners=(..)] [option=value...]`: N new nodes numbered after the existing
   * ones. The first call bootstraps them (with `voters`, default all of them); later calls add empty nodes
   * that learn everything from a leader, unless `voters` is given.
   */
  private addNodes(cmd: Command): void {
    const n = this.num(cmd, "count", this.arg(cmd, 0));
    const first = this.nodes.size + 1;
    const ids = Array.from({ length: n }, (_, k) => String(first + k));
    const voters = this.listOpt(cmd, "voters") ?? (this.nodes.size === 0 ? ids : undefined);
    const bootstrap = voters ? { voters, learners: this.listOpt(cmd, "learners") ?? [] } : undefined;
    const random = this.num(cmd, "random", cmd.opts.get("random") ?? "0");
    if (random >= 1) throw new ScenarioError("random must be in [0, 1)");
    const over: Partial<RaftConfig> = {
      preVote: cmd.opts.get("prevote") === "true",
      checkQuorum: cmd.opts.get("checkquorum") === "true",
      random: () => random,
    };
    const numbers: [string, keyof RaftConfig][] = [
      ["election", "electionTicks"],
      ["heartbeat", "heartbeatTicks"],
      ["jitter", "electionJitterTicks"],
      ["retry", "electionRetryTicks"],
      ["max-inflight", "maxInflight"],
      ["lease-drift", "leaseDriftTicks"],
    ];
    for (const [opt, key] of numbers) {
      const v = cmd.opts.get(opt);
      if (v !== undefined) (over as Record<string, number>)[key] = this.num(cmd, opt, v);
    }
    for (const id of ids) {
      const cfg = config(id, over);
      const node: Node = {
        core: new RaftCore(cfg, EMPTY_RESTORE, bootstrap),
        cfg,
        disk: { hardState: EMPTY_RESTORE.hardState, snapshot: null, entries: [] },
        applied: [],
        inbox: [],
        manualWrites: cmd.opts.get("async-writes") === "true",
        pendingWrite: null,
      };
      this.nodes.set(id, node);
      // Bootstrapping writes the same first entry everywhere; carrying it out is setup, not the scenario.
      while (node.core.hasReady()) {
        const r = node.core.ready();
        this.apply(id, r);
        node.core.advance(r);
        if (r.persist) this.completeWrite(id, r);
      }
    }
  }

  // ---------------------------------------------------------------- time

  /** Tick until the node stops being a follower (its election timeout ran out). */
  private campaign(id: NodeId, out: string[]): void {
    const n = this.get(id);
    const role = n.core.status(false).role;
    if (role !== "follower")
      throw new ScenarioError(`campaign ${id}: it is a ${role}, not a follower (use tick)`);
    const limit = 4 * n.cfg.electionTicks + (n.cfg.electionJitterTicks ?? n.cfg.electionTicks);
    for (let k = 1; k <= limit; k++) {
      const before = n.core.status(false);
      n.core.tick();
      if (n.core.status(false).role !== "follower") {
        out.push(`${id} ticked ${k} times`);
        this.transition(before, n.core.status(false), out, "");
        return;
      }
    }
    throw new ScenarioError(`${id} did not campaign within ${limit} ticks`);
  }

  /** Tick each named node `times(node)` times, one node after the other. */
  private tick(cmd: Command, times: (n: Node) => number, out: string[]): void {
    for (const id of this.ids(cmd)) {
      const n = this.get(id);
      const before = n.core.status(false);
      for (let k = times(n); k > 0; k--) n.core.tick();
      this.transition(before, n.core.status(false), out, "");
    }
  }

  // ---------------------------------------------------------------- proposals

  private propose(cmd: Command, out: string[]): void {
    const n = this.node(cmd, 0);
    for (const data of cmd.args.slice(1)) {
      const r = n.core.propose(encoder.encode(data));
      out.push(
        "error" in r ? `rejected ${r.error} leader=${r.leader ?? "none"}` : `${data} at ${r.index}@${r.term}`,
      );
    }
  }

  private proposeConfChange(cmd: Command, out: string[]): void {
    const op = this.arg(cmd, 1) as ConfChangeOp;
    if (!["add-learner", "promote", "remove"].includes(op)) throw new ScenarioError(`bad conf change ${op}`);
    const r = this.node(cmd, 0).core.proposeConfChange({ op, node: this.arg(cmd, 2) });
    out.push("error" in r ? `rejected ${r.error} leader=${r.leader ?? "none"}` : `at ${r.index}@${r.term}`);
  }

  private compact(cmd: Command, out: string[]): void {
    const n = this.node(cmd, 0);
    const index = this.num(cmd, "index", this.arg(cmd, 1));
    // A driver compacts right after snapshotting its state machine, so the snapshot's contents are the
    // state machine's now; below the applied index they would be unknown here.
    if (index < n.core.status(false).applied) throw new ScenarioError("compact only at the applied index");
    let meta: SnapshotMeta;
    try {
      meta = n.core.compact(index);
    } catch (e) {
      out.push(`error: ${(e as Error).message}`);
      return;
    }
    this.snapshots.set(`${meta.index}@${meta.term}`, [...n.applied]);
    n.disk.snapshot = meta;
    n.disk.entries = n.disk.entries.filter((e) => e.index > meta.index);
    out.push(`snapshot ${formatSnapshot(meta)}`);
  }

  // ---------------------------------------------------------------- the driver loop

  private processReady(id: NodeId, out: string[]): boolean {
    const n = this.get(id);
    if (!n.core.hasReady()) {
      out.push(`${id}: no Ready`);
      return false;
    }
    const before = n.core.status(false);
    const r = n.core.ready();
    out.push(`> ${id} handling Ready${r.persist ? " with a write" : ""}`);
    for (const l of formatReady(r)) out.push(`  ${l}`);
    this.send(r.messages);
    this.apply(id, r);
    n.core.advance(r);
    if (r.persist) {
      if (n.manualWrites) n.pendingWrite = r;
      else this.completeWrite(id, r);
    }
    this.transition(before, n.core.status(false), out, "  ");
    return true;
  }

  private finishWrite(id: NodeId, out: string[]): boolean {
    const n = this.get(id);
    const r = n.pendingWrite;
    if (!r) {
      out.push(`${id}: no write in flight`);
      return false;
    }
    n.pendingWrite = null;
    out.push(`> ${id} write durable`);
    const before = n.core.status(false);
    this.completeWrite(id, r);
    this.transition(before, n.core.status(false), out, "  ");
    return true;
  }

  private completeWrite(id: NodeId, r: Ready): void {
    const n = this.get(id);
    this.write(id, r);
    if (r.snapshot) {
      const data = this.snapshots.get(`${r.snapshot.index}@${r.snapshot.term}`);
      if (!data) throw new ScenarioError(`no snapshot data for ${r.snapshot.index}@${r.snapshot.term}`);
      n.applied = [...data];
    }
    this.send(r.persistedMessages);
    n.core.persisted(r);
  }

  private write(id: NodeId, r: Ready): void {
    const disk = this.get(id).disk;
    if (r.snapshot) {
      disk.snapshot = r.snapshot;
      disk.entries = [];
    }
    const first = r.entries[0];
    if (first) disk.entries = [...disk.entries.filter((e) => e.index < first.index), ...r.entries];
    if (r.hardState) disk.hardState = r.hardState;
  }

  private apply(id: NodeId, r: Ready): void {
    const n = this.get(id);
    for (const e of r.committed) if (e.kind === "normal") n.applied.push(decoder.decode(e.data));
  }

  private send(ms: readonly Message[]): void {
    // Messages to nodes the scenario never added vanish, like packets to an unknown address.
    for (const m of ms) this.nodes.get(m.to)?.inbox.push(m);
  }

  private deliver(id: NodeId, out: string[], drop: boolean): boolean {
    const n = this.get(id);
    if (n.inbox.length === 0) return false;
    const batch = n.inbox;
    n.inbox = [];
    out.push(`> ${id} receiving messages`);
    for (const m of batch) {
      if (drop || this.cut.has(m.from) !== this.cut.has(m.to)) {
        out.push(`  ${formatMessage(m)} (dropped)`);
        continue;
      }
      out.push(`  ${formatMessage(m)}`);
      const before = n.core.status(false);
      n.core.step(m);
      this.transition(before, n.core.status(false), out, "    ");
    }
    return true;
  }

  /** Carry out Readys and writes, then deliver messages, until nothing is left to do. */
  private stabilize(ids: NodeId[], out: string[]): void {
    for (let round = 0; round < STABILIZE_ROUNDS; round++) {
      let busy = false;
      for (const id of ids) {
        while (this.get(id).core.hasReady()) busy = this.processReady(id, out) || busy;
        if (this.get(id).pendingWrite) busy = this.finishWrite(id, out) || busy;
        while (this.get(id).core.hasReady()) busy = this.processReady(id, out) || busy;
      }
      for (const id of ids) busy = this.deliver(id, out, false) || busy;
      if (!busy) return;
    }
    throw new ScenarioError(`not stable after ${STABILIZE_ROUNDS} rounds`);
  }

  /** Crash and start again from what is on disk: memory, in-flight writes and undelivered messages are lost. */
  private restart(id: NodeId): void {
    const n = this.get(id);
    const { hardState, snapshot, entries } = n.disk;
    n.core = new RaftCore(n.cfg, { hardState, snapshot, entries });
    n.applied = snapshot ? [...(this.snapshots.get(`${snapshot.index}@${snapshot.term}`) ?? [])] : [];
    n.inbox = [];
    n.pendingWrite = null;
  }

  // ---------------------------------------------------------------- output

  private transition(before: RaftStatus, after: RaftStatus, out: string[], indent: string): void {
    const parts: string[] = [];
    if (before.role !== after.role) parts.push(`role ${before.role}->${after.role}`);
    if (before.term !== after.term) parts.push(`term ${before.term}->${after.term}`);
    if (before.leader !== after.leader)
      parts.push(`leader ${before.leader ?? "none"}->${after.leader ?? "none"}`);
    if (parts.length > 0) out.push(`${indent}~ ${after.id} ${parts.join(", ")}`);
  }

  private statusLines(id: NodeId, withProgress: boolean): string[] {
    return formatStatus(this.get(id).core.status(withProgress));
  }

  /** The node's log as it holds it in memory, then what its disk holds. */
  private log(id: NodeId, out: string[]): void {
    const n = this.get(id);
    const s = n.core.status(false);
    out.push(`${id}: log=[${s.firstIndex}..${s.lastIndex}] commit=${s.commit} applied=${s.applied}`);
    for (let i = s.firstIndex; i <= s.lastIndex; i++) {
      const e = n.core.entryAt(i);
      out.push(`  ${e ? formatEntry(e) : `${i} missing`}`);
    }
    const d = n.disk;
    const snap = d.snapshot ? ` snapshot=${formatSnapshot(d.snapshot)}` : "";
    const last = d.entries[d.entries.length - 1];
    const span = last ? ` entries=${d.entries[0]!.index}..${last.index}@${last.term}` : " entries=none";
    out.push(`  disk: ${formatHardState(d.hardState)}${snap}${span}`);
  }

  // ---------------------------------------------------------------- arguments

  private get(id: NodeId): Node {
    const n = this.nodes.get(id);
    if (!n) throw new ScenarioError(`no node ${id}`);
    return n;
  }

  private arg(cmd: Command, k: number): string {
    const a = cmd.args[k];
    if (a === undefined) throw new ScenarioError(`${cmd.name}: argument ${k + 1} missing`);
    return a;
  }

  /** A non-negative number (an option's value or an argument), else a usage error. */
  private num(cmd: Command, what: string, v: string | string[]): number {
    const x = typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
    if (!Number.isFinite(x) || x < 0)
      throw new ScenarioError(`${cmd.name}: ${what} must be a number, not ${v}`);
    return x;
  }

  private id(cmd: Command, k: number): NodeId {
    const id = this.arg(cmd, k);
    this.get(id);
    return id;
  }

  /** The node named by argument k. */
  private node(cmd: Command, k: number): Node {
    return this.get(this.arg(cmd, k));
  }

  private ids(cmd: Command): NodeId[] {
    if (cmd.args.length === 0) throw new ScenarioError(`${cmd.name}: name at least one node`);
    return cmd.args.map((_, k) => this.id(cmd, k));
  }

  private allIds(): NodeId[] {
    return [...this.nodes.keys()].sort(byId);
  }

  private listOpt(cmd: Command, key: string): string[] | undefined {
    const v = cmd.opts.get(key);
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) throw new ScenarioError(`${key} must be a list like (1,2,3)`);
    return v;
  }
}
