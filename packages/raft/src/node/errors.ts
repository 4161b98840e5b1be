import type { NodeId, RejectReason } from "../core/types.js";

/** This server cannot take the request because it is not the leader; `leader` is its best guess of who is. */
export class NotLeaderError extends Error {
  override readonly name = "NotLeaderError";
  constructor(
    readonly reason: Extract<RejectReason, "not-leader" | "no-leader" | "transferring">,
    readonly leader: NodeId | null,
    readonly leaderAddress: string | null,
  ) {
    super(leader ? `not the leader; the leader is ${leader}` : `not the leader (${reason})`);
  }

  /** What travels in an RPC error, so a forwarding server can rebuild this error. */
  get data(): { reason: string; leader: NodeId | null; leaderAddress: string | null } {
    return { reason: this.reason, leader: this.leader, leaderAddress: this.leaderAddress };
  }
}

/** The leader refused the request itself (a membership change that cannot be made now, or at all). */
export class RaftRejectedError extends Error {
  override readonly name = "RaftRejectedError";
  constructor(
    readonly reason: RejectReason,
    readonly leader: NodeId | null,
  ) {
    super(`raft rejected the request: ${reason}`);
  }

  /** What crosses a server RPC with the error, so a follower that forwarded the request knows the reason. */
  get data(): { reason: RejectReason } {
    return { reason: this.reason };
  }
}

/** The entry was appended but a new leader replaced it before it committed: it will never apply. */
export class ProposalDroppedError extends Error {
  override readonly name = "ProposalDroppedError";
  constructor(index: number) {
    super(`proposal at index ${index} was overwritten by a new leader`);
  }
}

/** No answer in time. For a proposal the outcome is unknown: it may still be applied. */
export class RaftTimeoutError extends Error {
  override readonly name = "RaftTimeoutError";
}

export class NodeStoppedError extends Error {
  override readonly name = "NodeStoppedError";
  constructor() {
    super("raft node stopped");
  }
}
