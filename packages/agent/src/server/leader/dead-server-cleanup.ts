import type { Logger } from "pino";
import type { AutopilotSettings } from "../../config/index.js";
import type { MembershipView } from "../../membership/types.js";
import { deadServersToRemove, trackDeadSince } from "../autopilot/dead-servers.js";
import { serverStatuses } from "../autopilot/server-status.js";
import type { RaftPeerChanges } from "./member-reconciler.js";

/** Consul's reconcile interval: a server gossip does not list at all is given this long to appear. */
const UNKNOWN_SERVER_GRACE_MS = 60_000;

export interface DeadServerCleanupOptions {
  selfId: () => string;
  membership: MembershipView;
  raft: RaftPeerChanges;
  /** Raft ID -> node name, for members gossip knows by name only. */
  serverNames: () => ReadonlyMap<string, string>;
  /** Read at every check (the operator endpoint changes them). */
  settings: () => Pick<
    AutopilotSettings,
    "cleanupDeadServers" | "deadServerCleanupThresholdMs" | "minQuorum"
  >;
  log: Logger;
  now: () => number;
  checkEveryMs: number;
}

/**
 * Autopilot's dead server cleanup on the leader: servers failed, left or unknown to gossip for the threshold
 * are removed from the Raft configuration, within the limits `deadServersToRemove` keeps.
 */
export class DeadServerCleanup {
  private timer: NodeJS.Timeout | undefined;
  private deadSince = new Map<string, number>();
  private removing = false;

  constructor(private readonly options: DeadServerCleanupOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.check(), this.options.checkEveryMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.deadSince.clear();
  }

  /** One look: updates who is dead since when, and removes those due. */
  async check(): Promise<void> {
    const { options } = this;
    const conf = options.raft.membership();
    if (this.removing || !conf) return;
    const selfId = options.selfId();
    const status = serverStatuses(options.membership.lanMembers(), options.serverNames());
    // Gossip that does not (yet) list this server as alive is not a view to remove anyone on.
    if (status.get(selfId) !== "alive") {
      this.deadSince.clear();
      return;
    }
    const now = options.now();
    this.deadSince = trackDeadSince(this.deadSince, [...conf.voters, ...conf.learners], status, now);
    const settings = options.settings();
    if (!settings.cleanupDeadServers) return;
    const removals = deadServersToRemove({
      selfId,
      voters: conf.voters,
      learners: conf.learners,
      status,
      deadSince: this.deadSince,
      now,
      thresholdMs: settings.deadServerCleanupThresholdMs,
      unknownGraceMs: UNKNOWN_SERVER_GRACE_MS,
      minQuorum: settings.minQuorum,
    });
    if (removals.length === 0) return;
    this.removing = true;
    try {
      for (const id of removals) {
        await options.raft.remove(id).then(
          () => options.log.info({ server: id }, "removed a dead server from the Raft configuration"),
          (err: Error) => options.log.warn({ server: id, err: err.message }, "dead server removal failed"),
        );
      }
    } finally {
      this.removing = false;
    }
  }
}
