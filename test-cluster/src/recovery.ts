// Unavailability windows: from a fault's moment (a leader killed, a partition healed) until a write through
// any serving server succeeds again.

import { httpCall } from "../../scripts/lib/http.js";
import type { Cluster } from "./cluster/cluster.js";

export interface RecoveryWindow {
  readonly cause: string;
  /** Harness time of the fault. */
  readonly at: number;
  /** Milliseconds until the first successful write; undefined when none succeeded within the limit. */
  readonly ms: number | undefined;
}

export async function measureRecovery(
  cluster: Cluster,
  key: string,
  cause: string,
  limitMs = 60_000,
): Promise<RecoveryWindow> {
  const at = performance.now();
  let next = 0;
  while (performance.now() - at < limitMs) {
    const serving = cluster.nodes.filter((n) => cluster.isServing(n.index));
    const node = serving[next++ % Math.max(1, serving.length)];
    if (node === undefined) {
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    const r = await httpCall(`${node.url}/v1/kv/${key}`, "PUT", String(at), 1000);
    if (r.kind === "reply" && r.status === 200 && r.body.trim() === "true") {
      return { cause, at, ms: Math.round(performance.now() - at) };
    }
    if (r.kind === "reply") await new Promise((res) => setTimeout(res, 20));
  }
  return { cause, at, ms: undefined };
}
