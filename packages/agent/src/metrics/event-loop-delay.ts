import { type IntervalHistogram, monitorEventLoopDelay } from "node:perf_hooks";

let histogram: IntervalHistogram | undefined;

/**
 * The agent's event-loop delay since it started (idempotent: the first call starts measuring). Raft's timing
 * is chosen against it: a stall longer than the election timeout on a leader looks like a dead leader.
 */
export function eventLoopDelay(): IntervalHistogram {
  if (histogram === undefined) {
    histogram = monitorEventLoopDelay({ resolution: 20 });
    histogram.enable();
  }
  return histogram;
}
