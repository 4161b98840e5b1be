// One closed-loop cell of Cairn KV PUTs or default-consistency GETs against one target, from wrk or from the
// Node client, over keys `bench/key-00000000`...: the shape the client-agent and TLS benchmarks share.
import type { Agent } from "node:http";
import type { HttpTarget } from "./http-client.js";
import { cairnKv } from "./kv-drivers.js";
import { type LoadResult, runLoad } from "./load.js";
import { runWrk } from "./wrk.js";

export const kvKeyName = (i: number) => `bench/key-${i.toString().padStart(8, "0")}`;

export interface KvCellOptions {
  generator: "wrk" | "node";
  target: HttpTarget;
  /** The Node client's keep-alive agent (unused by wrk, whose connections are its own). */
  agent: Agent;
  op: "put" | "get";
  clients: number;
  keys: number;
  value: Buffer;
  durationMs: number;
  warmupMs: number;
  wrkThreads?: number;
}

/**
 * wrk draws keys at random and counts whole seconds (warm-up and measurement round up; its first run also
 * warms its connections, TLS handshakes included); the Node client's workers walk the keys on different
 * strides so concurrent operations rarely share one.
 */
export async function kvCell(o: KvCellOptions): Promise<LoadResult> {
  if (o.generator === "wrk") {
    const requests = Array.from({ length: o.keys }, (_, i) =>
      o.op === "put"
        ? cairnKv.putRequest(kvKeyName(i), o.value)
        : cairnKv.getRequest(kvKeyName(i), "default"),
    );
    const run = (seconds: number) =>
      runWrk({ target: o.target, requests, connections: o.clients, threads: o.wrkThreads ?? 1, seconds });
    if (o.warmupMs > 0) await run(Math.ceil(o.warmupMs / 1000));
    return run(Math.max(1, Math.ceil(o.durationMs / 1000)));
  }
  const keyFor = (worker: number, seq: number) => kvKeyName((worker * 7919 + seq * 104_729) % o.keys);
  return runLoad({
    concurrency: o.clients,
    durationMs: o.durationMs,
    warmupMs: o.warmupMs,
    op: (worker, seq) =>
      o.op === "put"
        ? cairnKv.put(o.agent, o.target, keyFor(worker, seq), o.value)
        : cairnKv.get(o.agent, o.target, keyFor(worker, seq), "default"),
  });
}
