// Many catalog services at once (UI tests and benchmark): registered through /v1/txn in batches, far fewer
// round trips than one registration each.

import { http } from "./http.js";

/** Registers `count` services `<prefix>-<i>` on `node` (which must exist), 64 per transaction. */
export async function registerServices(
  url: string,
  node: string,
  count: number,
  prefix = "svc",
): Promise<void> {
  for (let start = 0; start < count; start += 64) {
    const ops = [];
    for (let i = start; i < Math.min(count, start + 64); i++) {
      ops.push({
        Service: {
          Verb: "set",
          Node: node,
          Service: {
            ID: `${prefix}-${i}`,
            Service: `${prefix}-${i}`,
            Tags: [`t${i % 7}`],
            Port: 1000 + (i % 50000),
          },
        },
      });
    }
    const res = await http(`${url}/v1/txn`, "PUT", JSON.stringify(ops), { timeoutMs: 60_000 });
    if (res.status !== 200) throw new Error(`txn registering services: ${res.status} ${res.text}`);
  }
}
