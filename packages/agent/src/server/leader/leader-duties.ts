import type { ApplyResult, Command } from "@cairn/fsm";
import type { AppliedListener } from "../fsm-state-machine.js";
import type { AclDuties } from "./acl-duties.js";
import type { LearnerPromotion } from "./learner-promotion.js";
import type { SessionTimers } from "./session-timers.js";
import type { TombstoneGc } from "./tombstone-gc.js";

/** What only the leader runs, started when this server takes leadership and stopped when it loses it. */
export class LeaderDuties implements AppliedListener {
  private running = false;

  constructor(
    readonly sessions: SessionTimers,
    private readonly tombstones: TombstoneGc,
    private readonly promotion: LearnerPromotion,
    private readonly acl?: AclDuties,
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
      this.promotion.start();
      this.acl?.start();
    } else {
      this.sessions.stop();
      this.tombstones.stop();
      this.promotion.stop();
      this.acl?.stop();
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
