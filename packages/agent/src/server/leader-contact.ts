import type { ServerRaftNode } from "@cairn/raft";
import type { ServerRpc } from "../server-rpc/server-rpc.js";
import { RPC } from "./rpc-codec.js";

const PING_EVERY_MS = 500;

/**
 * How long ago this server last heard from the leader, for X-Service-LastContact and `max_stale`. RaftNode
 * does not expose when the leader's last heartbeat arrived, so a follower measures it itself: it pings the
 * leader over the server connection twice a second and remembers the last answer from a server that was
 * still leading. On the leader the contact is always 0.
 */
export class LeaderContact {
  private lastContactAt: number;
  private timer: NodeJS.Timeout | undefined;
  private inFlight = false;

  constructor(
    private readonly node: ServerRaftNode<unknown>,
    private readonly rpc: ServerRpc,
    private readonly now: () => number = Date.now,
  ) {
    this.lastContactAt = now();
  }

  start(): void {
    this.rpc.handle(RPC.ping, () => ({ leader: this.node.isLeader() }));
    this.timer = setInterval(() => this.ping(), PING_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  knownLeader(): boolean {
    return this.node.leaderId() !== null;
  }

  lastContactMs(): number {
    if (this.node.isLeader()) return 0;
    return Math.max(0, this.now() - this.lastContactAt);
  }

  /** Any confirmed answer from the leader (a read index, a forwarded write) counts as contact too. */
  touched(): void {
    this.lastContactAt = this.now();
  }

  private ping(): void {
    const leader = this.node.leaderId();
    if (this.node.isLeader()) {
      this.lastContactAt = this.now();
      return;
    }
    if (leader === null || this.inFlight) return;
    this.inFlight = true;
    this.rpc
      .request(leader, RPC.ping, null, PING_EVERY_MS * 2)
      .then((answer) => {
        if ((answer as { leader?: unknown } | null)?.leader === true) this.touched();
      })
      .catch(() => {})
      .finally(() => {
        this.inFlight = false;
      });
  }
}
