import type {
  ClusterBackend,
  LeaderContact as ContactHeaders,
  ReadMode,
  SnapshotArchive,
  StateReader,
} from "@cairn/api";
import { HttpError, LeaderBusyError, NoClusterLeaderError, stateReader } from "@cairn/api";
import {
  type ApplyResult,
  type Command,
  encodeCommandEntry,
  type Session,
  stampLeaderTime,
  streamRestore,
} from "@cairn/fsm";
import { NotLeaderError, RaftRejectedError, RpcError, type ServerRaftNode } from "@cairn/raft";
import type { Logger } from "pino";
import type { ServerRpc } from "../server-rpc/server-rpc.js";
import type { FsmStateMachine } from "./fsm-state-machine.js";
import type { SessionTimers } from "./leader/session-timers.js";
import type { LeaderContact } from "./leader-contact.js";
import { type Attempt, DEFAULT_HOLD_MS, holdForLeader, isRetryable } from "./leader-hold.js";
import { packValue, RPC, unpackValue } from "./rpc-codec.js";
import { turnEnd } from "./turn-end.js";

/** A forwarded write waits a little longer than the leader's own proposal timeout, so the leader's answer wins. */
const FORWARD_TIMEOUT_MS = 35_000;
const QUICK_RPC_TIMEOUT_MS = 3_000;

export interface RaftBackendDeps {
  fsm: FsmStateMachine;
  sessions: SessionTimers;
  log: Logger;
  holdMs?: number;
  /** This server's clock (ms since the epoch); as leader it stamps the time of every command it proposes. */
  now?: () => number;
}

/**
 * The ClusterBackend of a server: writes are proposed to Raft on the leader and forwarded to it from a
 * follower; reads are served from the local store after the barrier their consistency mode asks for. Until
 * Raft runs (a server waiting for bootstrap_expect peers) everything that needs a leader waits out the hold
 * time and then answers "No cluster leader", as Consul does.
 */
export class RaftBackend implements ClusterBackend {
  private node: ServerRaftNode<ApplyResult> | undefined;
  private rpc: ServerRpc | undefined;
  private contact: LeaderContact | undefined;
  private readonly holdMs: number;
  /** Held requests, woken when a leader becomes known (one listener on the node however many are held). */
  private readonly leaderWaiters = new Set<() => void>();
  private readonly now: () => number;
  /** Counts leadership changes; `readyLeadership` is the one in which this leader served a read index. */
  private leadership = 0;
  private readyLeadership = -1;
  /** Set by a planned stop: requests other servers forward here are refused as "not the leader". */
  private draining = false;
  /** Forwarded requests being served; a stop waits for them before the transport closes. */
  private serving = 0;
  /** When the last forwarded request arrived (a stop waits until they stop coming). */
  private lastForwardAt = Number.NEGATIVE_INFINITY;

  /** The replica, read-only: the state machine alone writes it, as Raft commits. */
  readonly store: StateReader;

  constructor(private readonly deps: RaftBackendDeps) {
    this.holdMs = deps.holdMs ?? DEFAULT_HOLD_MS;
    this.now = deps.now ?? Date.now;
    this.store = stateReader(deps.fsm.store);
  }

  /** Only asked on a path that found Raft running, so after `attach`. */
  private serverRpc(): ServerRpc {
    if (!this.rpc) throw new Error("server RPC is not attached yet");
    return this.rpc;
  }

  /** Raft is running: serve through it, and answer the requests other servers forward here. */
  attach(node: ServerRaftNode<ApplyResult>, contact: LeaderContact, rpc: ServerRpc): void {
    this.node = node;
    this.rpc = rpc;
    this.contact = contact;
    node.on("leader", (leader) => {
      this.leadership++;
      if (leader !== null) for (const wake of [...this.leaderWaiters]) wake();
    });
    rpc.handle(RPC.apply, (payload) =>
      this.serveForwarded(node, async () => {
        if (!(payload instanceof Uint8Array)) throw new TypeError("apply expects encoded entry bytes");
        return packValue(await node.propose(stampLeaderTime(payload, this.now())));
      }),
    );
    rpc.handle(RPC.renewSession, (payload) =>
      this.serveForwarded(node, async () => {
        const { id, ns } = payload as { id: unknown; ns: unknown };
        if (typeof id !== "string" || typeof ns !== "string") throw new TypeError("renew expects {id, ns}");
        if (!node.isLeader()) throw new NotLeaderError("not-leader", node.leaderId(), null);
        return packValue(this.renewHere(id, ns));
      }),
    );
  }

  /**
   * A request from another server. While draining it is refused as "not the leader", which proves to the
   * sender it did not run, so the sender retries it with the next leader instead of failing it.
   */
  private async serveForwarded<T>(node: ServerRaftNode<ApplyResult>, work: () => Promise<T>): Promise<T> {
    this.lastForwardAt = performance.now();
    if (this.draining) throw new NotLeaderError("not-leader", node.isLeader() ? null : node.leaderId(), null);
    this.serving++;
    try {
      return await work();
    } finally {
      this.serving--;
    }
  }

  /**
   * Before a planned stop closes the server port (after the leadership hand-off): refuses new forwarded
   * requests and waits until those in progress answered (a proposal accepted before the hand-off commits
   * under the new leader and answers here) and none arrived for `quietMs` (servers that have not heard of
   * the new leader yet still send here, and must get the refusal rather than a closed connection). Bounded
   * by `maxMs`.
   */
  async drain(maxMs: number, quietMs: number): Promise<void> {
    this.draining = true;
    const deadline = performance.now() + maxMs;
    for (;;) {
      const now = performance.now();
      if (now >= deadline) break;
      if (this.serving === 0 && now - this.lastForwardAt >= quietMs) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    if (this.serving > 0)
      this.deps.log.warn({ serving: this.serving }, "stopping with forwarded requests still in progress");
  }

  /** Stamped with the leader's clock where it is proposed (the leader re-stamps what a follower forwards). */
  apply(command: Command): Promise<ApplyResult> {
    return this.proposeVia(
      () => encodeCommandEntry(command, this.now()),
      () => encodeCommandEntry(command),
    );
  }

  /**
   * For the leader's own duties (session expiry, tombstone reaps): proposed here or not at all, never
   * forwarded — a server that lost leadership leaves the work to the new leader's fresh timers.
   */
  async applyAsLeader(command: Command): Promise<ApplyResult> {
    const node = this.node;
    if (!node?.isLeader()) throw new NotLeaderError("not-leader", node?.leaderId() ?? null, null);
    return node.propose(encodeCommandEntry(command));
  }

  /** Proposes encoded entry bytes through the leader and returns the state machine's result. */
  applyEncoded(entry: Uint8Array): Promise<ApplyResult> {
    return this.proposeVia(
      () => stampLeaderTime(entry, this.now()),
      () => entry,
    );
  }

  /** `onLeader` for a write: the entry as the leader proposes it, or as a follower forwards it. */
  private proposeVia(asLeader: () => Uint8Array, asForwarded: () => Uint8Array): Promise<ApplyResult> {
    // A leader proposes at once: the hold below (its subscription, back-off and attempt closures) is for
    // waiting out an election, and cost a leader's every write several promises and closures. A refusal
    // proving the entry was not appended, or was replaced, goes through the hold as before.
    const node = this.node;
    if (!node?.isLeader()) return this.proposeHeld(asLeader, asForwarded);
    let entry: Uint8Array;
    try {
      entry = asLeader();
    } catch (err) {
      return Promise.reject(err); // as from the hold: a rejection, never a throw
    }
    return node
      .propose(entry)
      .catch((err: unknown) =>
        isRetryable(err, false) ? this.proposeHeld(asLeader, asForwarded) : proposalError(err),
      );
  }

  private proposeHeld(asLeader: () => Uint8Array, asForwarded: () => Uint8Array): Promise<ApplyResult> {
    return this.onLeader(
      false,
      (node) => node.propose(asLeader()).catch(proposalError),
      async (_node, leader) => {
        let answer: unknown;
        try {
          answer = await this.serverRpc().request(leader, RPC.apply, asForwarded(), FORWARD_TIMEOUT_MS);
        } catch (err) {
          throw forwardedWriteError(err, this.deps.log);
        }
        return unpackValue(answer) as ApplyResult;
      },
    );
  }

  async readBarrier(mode: ReadMode, maxStaleMs?: number): Promise<ContactHeaders> {
    // Reads answered from this server's state wait for the end of the loop's turn, to be answered with every
    // other that came in during it (turn-end.ts). The checks below run after the wait, when the read does.
    if (mode !== "consistent") await turnEnd();
    const contact = this.contactHeaders();
    if (mode === "stale" && (maxStaleMs === undefined || contact.lastContactMs <= maxStaleMs)) return contact;
    // default, as Consul's leader serves it: at once on a leader that has committed an entry of its term (no
    // confirmation round); a follower asks the leader for its commit index (answered from the leader's lease)
    // and waits to have applied it. consistent: a quorum confirms the leadership first.
    const lease = mode !== "consistent";
    if (lease && this.node?.isLeader() && this.readyLeadership === this.leadership) return contact;
    await this.holdRaft<undefined>(true, async (node) => {
      if (node.leaderId() === null) return { done: false };
      const leadership = this.leadership;
      await node.readIndex({ lease });
      // The core answers a leader's read index only once its term has committed an entry.
      if (node.isLeader() && leadership === this.leadership) this.readyLeadership = leadership;
      return { done: true, value: undefined };
    });
    this.contact?.touched();
    return this.contactHeaders();
  }

  renewSession(id: string, ns: string): Promise<Session | null> {
    return this.onLeader(
      true,
      async () => this.renewHere(id, ns),
      async (_node, leader) =>
        unpackValue(
          await this.serverRpc().request(leader, RPC.renewSession, { id, ns }, QUICK_RPC_TIMEOUT_MS),
        ) as Session | null,
    );
  }

  async leader(): Promise<string> {
    const id = this.node?.leaderId();
    return id ? (this.node?.addressOf(id) ?? "") : "";
  }

  async peers(): Promise<string[]> {
    const node = this.node;
    if (!node) return [];
    return node
      .status()
      .conf.voters.map((id) => node.addressOf(id))
      .filter((a): a is string => a !== undefined);
  }

  async snapshotSave(): Promise<SnapshotArchive> {
    const view = this.store.view();
    return { index: view.index, data: copies(view.snapshot()) };
  }

  /**
   * Streamed through the log in chunk entries (each through the leader, as any write) that every server
   * stages and swaps in whole at the same index; the archive is checked as it streams, so a bad one is a
   * SnapshotFormatError and changes nothing.
   */
  snapshotRestore(archive: AsyncIterable<Uint8Array>): Promise<void> {
    return streamRestore(archive, (entry) => this.applyEncoded(entry));
  }

  contactHeaders(): ContactHeaders {
    return {
      knownLeader: this.contact?.knownLeader() ?? false,
      lastContactMs: this.contact?.lastContactMs() ?? 0,
    };
  }

  /**
   * Runs `local` on the leader, or `remote` against it from a follower, holding through elections. Non-
   * idempotent requests are retried only when the failure proves they did not run.
   */
  onLeader<T>(
    idempotent: boolean,
    local: (node: ServerRaftNode<ApplyResult>) => Promise<T>,
    remote: (node: ServerRaftNode<ApplyResult>, leader: string) => Promise<T>,
  ): Promise<T> {
    return this.holdRaft<T>(idempotent, async (node): Promise<Attempt<T>> => {
      if (node.isLeader()) return { done: true, value: await local(node) };
      const leader = node.leaderId();
      if (leader === null || !node.transport.isConnected(leader)) return { done: false };
      const value = await remote(node, leader);
      this.contact?.touched();
      return { done: true, value };
    });
  }

  private holdRaft<T>(
    idempotent: boolean,
    attempt: (node: ServerRaftNode<ApplyResult>) => Promise<Attempt<T>>,
  ): Promise<T> {
    return holdForLeader(
      {
        holdMs: this.holdMs,
        idempotent,
        onLeader: (listener) => {
          this.leaderWaiters.add(listener);
          return () => this.leaderWaiters.delete(listener);
        },
      },
      async () => (this.node ? attempt(this.node) : { done: false }),
      () => new NoClusterLeaderError(),
    );
  }

  private renewHere(id: string, ns: string): Session | null {
    const session = this.store.view().sessionGet(id, ns).value;
    if (!session) return null;
    this.deps.sessions.renew(session);
    return session;
  }
}

/** Frames are copied: the encoder may reuse its buffer for the next frame while this one is still queued. */
async function* copies(frames: Iterable<Uint8Array>): AsyncIterable<Uint8Array> {
  for (const frame of frames) yield Uint8Array.prototype.slice.call(frame);
}

/**
 * What the failure of a write forwarded to the leader means to its client. The leader refused it for its
 * backlog: nothing was written, retry (429). The connection to the leader failed after the write went out: it
 * may or may not have been applied, so it is not retried (as Consul does not); a failover, not a fault, so a
 * 500 with a plain reason. Anything else as it is (the leader hold retries what can be).
 */
export function forwardedWriteError(err: unknown, log?: Logger): unknown {
  if (refusedForBacklog(err)) return new LeaderBusyError();
  if (!(err instanceof RpcError) || (err.failure !== "unreachable" && err.failure !== "timeout")) return err;
  log?.warn({ err: err.message }, "forwarded write lost its leader; outcome unknown");
  return new HttpError(500, `rpc error: ${err.message} (the write may or may not have been applied)`);
}

/** What a proposal this server made as leader failed with, for its client: a refusal for its backlog is a 429. */
function proposalError(err: unknown): never {
  throw refusedForBacklog(err) ? new LeaderBusyError() : err;
}

/**
 * A leader at its limit of uncommitted entries refused the proposal before appending it, here or on the leader
 * a follower forwarded it to (RaftRejectedError carries its reason across the RPC).
 */
export function refusedForBacklog(err: unknown): boolean {
  if (err instanceof RaftRejectedError) return err.reason === "too-many-uncommitted";
  return (
    err instanceof RpcError &&
    err.failure === "remote" &&
    err.remoteName === "RaftRejectedError" &&
    (err.remoteData as { reason?: unknown } | undefined)?.reason === "too-many-uncommitted"
  );
}
