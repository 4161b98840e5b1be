/**
 * Restart over a long Raft log (not a test): for each size, writes a committed single-server log of that many
 * small entries, then starts a server on it and reports how long the start took and the heap it added, then how
 * long applying the whole log took and the largest heap seen meanwhile. The start must not grow with the log;
 * applying it does (every entry is applied), in bounded memory.
 * Run: node --expose-gc --import tsx scripts/bench/raft-restart.ts [sizes, default 100000,10000000]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { heapUsed, measureRestart, writeLongLog } from "./lib/raft-log.js";

const sizes = (process.argv[2] ?? "100000,10000000").split(",").map(Number);
const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;

const root = await mkdtemp(join(tmpdir(), "cairn-raft-restart-"));
try {
  console.log("| entries | write s | start ms | start heap | apply all s | peak heap while applying |");
  console.log("|--:|--:|--:|--:|--:|--:|");
  for (const size of sizes) {
    const dir = join(root, String(size));
    let t = performance.now();
    await writeLongLog(dir, size);
    const writeS = (performance.now() - t) / 1000;
    const base = heapUsed();
    let peak = 0;
    let applyS = 0;
    const m = await measureRestart(dir, async (_node, machine) => {
      t = performance.now();
      while (machine.lastIndex < size) {
        await new Promise((r) => setTimeout(r, 100));
        peak = Math.max(peak, process.memoryUsage().heapUsed - base);
      }
      applyS = (performance.now() - t) / 1000;
    });
    console.log(
      `| ${size.toLocaleString("en")} | ${writeS.toFixed(1)} | ${m.startMs.toFixed(0)} | ${mb(m.startHeap)} | ${applyS.toFixed(1)} | ${mb(peak)} |`,
    );
    await rm(dir, { recursive: true, force: true });
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
