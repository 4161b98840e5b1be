import type { ApplyResult, Command } from "@cairn/fsm";
import type { AppliedListener } from "../fsm-state-machine.js";
import type { SessionTimers } from "./session-timers.js";
import type { TombstoneGc } from "./tombstone-gc.js";

/** A leader-only job that runs from gaining leadership until losing it. */
export interface LeaderDuty {
  start(): void;
  stop(): void;
}

/** What only the leader runs, started when this server takes leadership and stopped when it loses it. */
export class LeaderDuties implements AppliedListener {
  private running = false;

  constructor(
    readonly sessions: SessionTimers,
    private readonly tombstones: TombstoneGc,
    /** The rest (learner promotion, ACL upkeep, autopilot, member reconciliation), started in this order. */
    private readonly others: readonly LeaderDuty[],
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  /** Follows the node's leadership: `leading` is whether this server is the leader now. */
  leadership(leading: boolean): void {
    if (leading === this.running) return;
    this.running = leading;
    if (leading) {
      this.sessions.start();
      this.tombstones.start();
      for (const duty of this.others) duty.start();
    } else {
      this.sessions.stop();
      this.tombstones.stop();
      for (const duty of this.others) duty.stop();
    }
  }

  applied(command: Command, result: ApplyResult): void {
    if (!this.running) return;
    this.sessions.applied(command, result);
    this.tombstones.applied(command);
  }

  restored(): void {
    this.sessions.resetAll();
  }

  stop(): void {
    this.leadership(false);
  }
}
