import type { RaftNodeStatus } from "@cairn/raft";
import type { Logger } from "pino";
import type { AutopilotSettings } from "../../config/index.js";

export interface PromotionOptions {
  /**
   * Read at every check (the operator endpoint changes them): a learner must stay caught up for
   * serverStabilizationTimeMs before it votes, caught up meaning at most maxTrailingLogs entries behind.
   */
  settings: () => Pick<AutopilotSettings, "serverStabilizationTimeMs" | "maxTrailingLogs">;
  checkEveryMs: number;
}

/** Which learners are healthy now: connected and within `maxTrailingLogs` of the leader's log. */
export function healthyLearners(status: RaftNodeStatus, maxTrailingLogs: number): string[] {
  const progress = status.progress ?? {};
  return status.conf.learners.filter((id) => {
    const pr = progress[id];
    return (
      pr !== undefined && status.connected.includes(id) && status.lastIndex - pr.match <= maxTrailingLogs
    );
  });
}

/** The part of the Raft node promotion needs. */
export interface PromotableRaft {
  isLeader(): boolean;
  status(): RaftNodeStatus;
  promote(id: string): Promise<void>;
}

/**
 * The leader's half of autopilot: a server that joined as a non-voter becomes a voter once it has been
 * caught up for the stabilization time. One promotion at a time (Raft changes membership one at a time).
 */
export class LearnerPromotion {
  private readonly healthySince = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private promoting = false;

  constructor(
    private readonly node: PromotableRaft,
    private readonly options: PromotionOptions,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.check(), this.options.checkEveryMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.healthySince.clear();
  }

  check(): void {
    if (!this.node.isLeader() || this.promoting) return;
    const settings = this.options.settings();
    const healthy = new Set(healthyLearners(this.node.status(), settings.maxTrailingLogs));
    for (const id of this.healthySince.keys()) if (!healthy.has(id)) this.healthySince.delete(id);
    const now = this.now();
    for (const id of healthy) {
      const since = this.healthySince.get(id) ?? now;
      this.healthySince.set(id, since);
      if (now - since < settings.serverStabilizationTimeMs) continue;
      this.promoting = true;
      this.node
        .promote(id)
        .then(
          () => this.log.info({ server: id }, "promoted a caught-up non-voter to voter"),
          (err: Error) => this.log.debug({ server: id, err: err.message }, "promotion deferred"),
        )
        .finally(() => {
          this.promoting = false;
        });
      return;
    }
  }
}
