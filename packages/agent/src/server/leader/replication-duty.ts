import {
  ApplyLimiter,
  type PrimaryFetch,
  type ReplicationStatus,
  realWait,
  replicateAcl,
  replicateConfigEntries,
  type Wait,
} from "@cairn/api";
import type { Command, StateStore } from "@cairn/fsm";
import type { Logger } from "pino";
import type { LeaderDuty } from "./leader-duties.js";

/** Runs `fn` after `ms`; returns what cancels it. Injected by tests that drive the cycle themselves. */
export type Schedule = (fn: () => void, ms: number) => () => void;

export const realSchedule: Schedule = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

export interface ReplicationDutyOptions {
  readonly store: StateStore;
  /** Proposes a command on this leader. */
  readonly apply: (command: Command) => Promise<unknown>;
  /** Reads of the primary datacenter's API (through `dc` forwarding). */
  readonly primary: PrimaryFetch;
  readonly status: ReplicationStatus;
  /** ACLs are on: policies, roles (and with token replication, tokens) replicate. */
  readonly acl: boolean;
  readonly intervalMs: number;
  readonly initialDelayMs: number;
  /** Local updates per second. */
  readonly applyRate: number;
  readonly now: () => number;
  readonly log: Logger;
  readonly schedule?: Schedule;
  readonly wait?: Wait;
}

/**
 * A secondary datacenter's replication from the primary, run by its leader only: the first cycle
 * `initialDelayMs` after gaining leadership (spec 1: about 60 s), then one every `intervalMs` (about 30 s)
 * after the previous one ends. A cycle replicates ACLs (when on) and config entries; a failure is recorded
 * in the status and the next cycle tries again, so a cut WAN heals by itself.
 */
export class ReplicationDuty implements LeaderDuty {
  #cancel: (() => void) | undefined;
  #generation = 0;
  #cycle: Promise<void> | undefined;

  constructor(private readonly o: ReplicationDutyOptions) {}

  start(): void {
    this.#generation++;
    this.o.status.running = true;
    this.#next(this.o.initialDelayMs);
  }

  stop(): void {
    this.#generation++;
    this.o.status.running = false;
    this.#cancel?.();
    this.#cancel = undefined;
  }

  /** Runs one cycle now (or waits for the one under way): for tests and benchmarks. */
  runOnce(): Promise<void> {
    this.#cycle ??= this.#run().finally(() => {
      this.#cycle = undefined;
    });
    return this.#cycle;
  }

  #next(ms: number): void {
    const generation = this.#generation;
    this.#cancel = (this.o.schedule ?? realSchedule)(() => {
      if (generation !== this.#generation) return;
      void this.runOnce().then(() => {
        if (generation === this.#generation) this.#next(this.o.intervalMs);
      });
    }, ms);
  }

  async #run(): Promise<void> {
    const { status, log } = this.o;
    const limiter = new ApplyLimiter(this.o.applyRate, this.o.now, this.o.wait ?? realWait);
    const common = { store: this.o.store, apply: this.o.apply, primary: this.o.primary, limiter };
    const skipped: string[] = [];
    try {
      if (this.o.acl) {
        const acl = await replicateAcl({ ...common, tokens: status.tokens });
        status.replicatedIndex = acl.policyIndex;
        status.replicatedRoleIndex = acl.roleIndex;
        status.replicatedTokenIndex = acl.tokenIndex;
        skipped.push(...acl.skipped);
        if (acl.updates > 0)
          log.info({ updates: acl.updates }, "replicated ACLs from the primary datacenter");
      }
      const config = await replicateConfigEntries(common);
      skipped.push(...config.skipped);
      if (config.updates > 0)
        log.info({ updates: config.updates }, "replicated config entries from the primary datacenter");
    } catch (err) {
      const message = (err as Error).message;
      log.warn({ err: message }, "replication from the primary datacenter failed");
      status.failed(this.o.now(), message);
      return;
    }
    if (skipped.length > 0) {
      for (const reason of skipped) log.error({ reason }, "replication left an object out");
      const first = skipped[0]!;
      status.failed(
        this.o.now(),
        skipped.length === 1
          ? `1 object not replicated: ${first}`
          : `${skipped.length} objects not replicated; first: ${first}`,
      );
      return;
    }
    status.succeeded(this.o.now());
  }
}
