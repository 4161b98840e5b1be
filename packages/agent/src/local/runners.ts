import type { Clock } from "./clock.js";
import type { Probe, ProbeResult } from "./probes.js";

/** Something that keeps a check's status current until stopped. */
export interface CheckRunner {
  stop(): void;
}

/**
 * Runs a probe every `intervalMs`, the first run after a random stagger within one interval (so checks
 * registered together do not fire together), never two runs of one check at once.
 */
export class IntervalRunner implements CheckRunner {
  private timer: unknown;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
    private readonly probe: Probe,
    private readonly report: (result: ProbeResult) => void,
    staggerMs: number,
  ) {
    this.timer = clock.setTimeout(() => this.run(), staggerMs);
  }

  private run(): void {
    if (this.stopped) return;
    this.probe().then(
      (result) => {
        if (this.stopped) return;
        this.report(result);
        this.timer = this.clock.setTimeout(() => this.run(), this.intervalMs);
      },
      (err: Error) => {
        if (this.stopped) return;
        this.report({ status: "critical", output: err.message });
        this.timer = this.clock.setTimeout(() => this.run(), this.intervalMs);
      },
    );
  }

  stop(): void {
    this.stopped = true;
    this.clock.clearTimeout(this.timer);
  }
}

/** A TTL check's deadline: critical when no update comes within the TTL of the last one. */
export class TtlRunner implements CheckRunner {
  private timer: unknown;
  private lastOutput = "";

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly expire: (output: string) => void,
    /** Time left of a TTL restored after a restart; the full TTL otherwise. */
    firstMs = ttlMs,
  ) {
    this.reset("", firstMs);
  }

  /** An update arrived: the TTL starts over. */
  reset(output: string, ms = this.ttlMs): void {
    this.lastOutput = output;
    this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => {
      this.expire(
        this.lastOutput === ""
          ? "TTL expired"
          : `TTL expired (last output before timeout follows): ${this.lastOutput}`,
      );
    }, ms);
  }

  stop(): void {
    this.clock.clearTimeout(this.timer);
  }
}

/**
 * Consul's `success_before_passing`, `failures_before_warning` and `failures_before_critical` (its
 * StatusHandler): a passing or warning result applies once that many non-failures came in a row; a failure
 * turns the check critical after `failuresBeforeCritical` in a row, and warning (with the failure's output)
 * after `failuresBeforeWarning`. The counters start at their thresholds, so the first result after
 * registration always applies. Pure: returns the result to apply, or undefined to keep the current status.
 */
export class StatusGate {
  private successes: number;
  private failures: number;

  constructor(
    private readonly successesNeeded: number,
    private readonly failuresBeforeWarning: number,
    private readonly failuresBeforeCritical: number,
  ) {
    this.successes = successesNeeded;
    this.failures = failuresBeforeCritical;
  }

  next(result: ProbeResult): ProbeResult | undefined {
    if (result.status !== "critical") {
      this.failures = 0;
      this.successes++;
      return this.successes >= this.successesNeeded ? result : undefined;
    }
    this.successes = 0;
    this.failures++;
    if (this.failures >= this.failuresBeforeCritical) return result;
    if (this.failures >= this.failuresBeforeWarning) return { status: "warning", output: result.output };
    return undefined;
  }
}
