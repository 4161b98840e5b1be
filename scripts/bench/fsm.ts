/**
 * State machine benchmark (not a test): KV-set applies per second (decode + apply, one core), heap for
 * 1,000,000 keys (20-byte keys, 100-byte values), snapshot write and restore time and size.
 * Run: node --expose-gc --import tsx scripts/bench/fsm.ts [keys]
 */
import { setMaxListeners } from "node:events";
import { encodeCommand, StateStore } from "../../packages/fsm/src/index.js";

const KEYS = Number(process.argv[2] ?? 1_000_000);
const gc = (globalThis as { gc?: () => void }).gc;

function key(i: number): string {
  return `bench/${i.toString().padStart(14, "0")}`; // 20 bytes
}

function value(i: number): Uint8Array {
  const v = new Uint8Array(100);
  v.fill(i & 0xff);
  v[0] = 0x80; // not plain ASCII
  return v;
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Wall-clock and process-CPU rates: on a shared machine the CPU figure is the one-core cost. */
function rate(label: string, n: number, wallStart: number, cpuStart: NodeJS.CpuUsage): void {
  const wall = (performance.now() - wallStart) / 1000;
  const cpu = process.cpuUsage(cpuStart).user / 1e6;
  console.log(
    `${label}: ${n} in ${wall.toFixed(2)} s wall = ${Math.round(n / wall)}/s; ${cpu.toFixed(2)} s CPU = ${Math.round(n / cpu)}/s`,
  );
}

function heap(): { used: number; external: number } {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return { used: m.heapUsed, external: m.external };
}

const before = heap();
// Encode the log up front: the leader's cost, not the state machine's.
const log: Uint8Array[] = new Array(KEYS);
for (let i = 0; i < KEYS; i++) {
  log[i] = encodeCommand({ v: 1, type: "kv.set", key: key(i), value: value(i), flags: 0n });
}

const store = new StateStore();
let wall = performance.now();
let cpu = process.cpuUsage();
for (let i = 0; i < KEYS; i++) store.apply(i + 1, log[i]!);
rate("kv.set applies (new keys)", KEYS, wall, cpu);
log.length = 0; // the log is not state: drop it before weighing the store
const after = heap();
console.log(
  `heap for ${KEYS} keys: ${mb(after.used - before.used)} (+ external ${mb(after.external - before.external)})${gc ? "" : " (run with --expose-gc for exact figures)"}`,
);

// Overwrites of random existing keys: the steady state.
const updates: Uint8Array[] = [];
for (let i = 0; i < 200_000; i++) {
  updates.push(
    encodeCommand({ v: 1, type: "kv.set", key: key((i * 7919) % KEYS), value: value(i), flags: 0n }),
  );
}
let index = store.index;
wall = performance.now();
cpu = process.cpuUsage();
for (const u of updates) store.apply(++index, u);
rate("kv.set applies (overwrites)", updates.length, wall, cpu);

/** Snapshot out and back in; everything it allocates is garbage once it returns. */
function snapshotRoundTrip(): void {
  let wall = performance.now();
  let cpu = process.cpuUsage();
  const took = () =>
    `${((performance.now() - wall) / 1000).toFixed(2)} s wall, ${(process.cpuUsage(cpu).user / 1e6).toFixed(2)} s CPU`;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (const chunk of store.snapshot()) {
    chunks.push(chunk);
    size += chunk.byteLength;
  }
  console.log(`snapshot write: ${took()}, ${mb(size)} in ${chunks.length} chunks`);
  wall = performance.now();
  cpu = process.cpuUsage();
  const restored = new StateStore();
  restored.restoreSync(chunks);
  const keys = restored.view().kvKeys("bench/", "/").value.length;
  console.log(`snapshot restore: ${took()} (${keys} keys back)`);
}
snapshotRoundTrip();

// Blocking queries: 10,000 waiters on distinct keys plus 1,000 on prefixes, while writes go to other keys.
const waitHeap = heap();
const view = store.view();
const stop = new AbortController();
setMaxListeners(0, stop.signal); // one signal for all here; the API gives each request its own
const pending: Promise<unknown>[] = [];
for (let i = 0; i < 10_000; i++)
  pending.push(store.watches.wait(view.kvGet(`watched/${i}`).watch, stop.signal));
for (let i = 0; i < 1_000; i++)
  pending.push(store.watches.wait(view.kvList(`watched/${i}/`).watch, stop.signal));
console.log(`${store.watches.waiting} waiters: ${mb(heap().used - waitHeap.used)} heap`);
wall = performance.now();
cpu = process.cpuUsage();
for (const u of updates.slice(0, 100_000)) store.apply(++index, u);
rate("kv.set applies with those waiters registered", 100_000, wall, cpu);
stop.abort();
await Promise.all(pending);
