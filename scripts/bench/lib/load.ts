// Closed-loop load generation: N workers, each issuing its next operation as soon as the previous one
// answers, for a fixed time. Latency is measured per operation, throughput over the whole window.

import { Latencies } from "./latency.js";

export interface LoadOptions {
  concurrency: number;
  durationMs: number;
  /** Operations in this first part of the window are run but not counted (connection setup, JIT). */
  warmupMs?: number;
  /** One operation; `worker` is 0..concurrency-1, `seq` counts this worker's operations. Throws on failure. */
  op: (worker: number, seq: number) => Promise<void>;
  /** Abandon the run after this many failed operations (default 100). */
  maxErrors?: number;
}

export interface LoadResult {
  concurrency: number;
  ops: number;
  errors: number;
  seconds: number;
  opsPerSec: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  firstError?: string;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { concurrency, durationMs, op } = options;
  const warmupMs = options.warmupMs ?? 0;
  const maxErrors = options.maxErrors ?? 100;
  const latencies = new Latencies();
  const start = performance.now();
  const measureFrom = start + warmupMs;
  const end = measureFrom + durationMs;
  let errors = 0;
  let firstError: string | undefined;

  const worker = async (id: number) => {
    for (let seq = 0; ; seq++) {
      const t0 = performance.now();
      if (t0 >= end || errors >= maxErrors) return;
      try {
        await op(id, seq);
        if (t0 >= measureFrom) latencies.record(performance.now() - t0);
      } catch (err) {
        errors++;
        firstError ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
  // Operations started before the end finish after it: count the window up to the last answer.
  const seconds = (performance.now() - measureFrom) / 1000;
  return {
    concurrency,
    ops: latencies.count,
    errors,
    seconds,
    opsPerSec: latencies.count / seconds,
    p50: latencies.percentile(50),
    p99: latencies.percentile(99),
    p999: latencies.percentile(99.9),
    max: latencies.max(),
    ...(firstError === undefined ? {} : { firstError }),
  };
}
