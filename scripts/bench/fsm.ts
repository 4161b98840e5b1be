/**
 * State machine benchmark (not a test): KV-set applies per second (decode + apply, one core), heap for
 * 1,000,000 keys (20-byte keys, 100-byte values), snapshot write and restore time and size.
 * Run: node --expose-gc --import tsx scripts/bench/fsm.ts [keys]
 */
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
const t0 = performance.now();
for (let i = 0; i < KEYS; i++) store.apply(i + 1, log[i]!);
const applySecs = (performance.now() - t0) / 1000;
log.length = 0; // the log is not state: drop it before weighing the store
const after = heap();
console.log(`apply: ${KEYS} kv.set in ${applySecs.toFixed(2)} s = ${Math.round(KEYS / applySecs)} applies/s`);
console.log(
  `heap for ${KEYS} keys: ${mb(after.used - before.used)} (+ external ${mb(after.external - before.external)})${gc ? "" : " (run with --expose-gc for exact figures)"}`,
);

// Updates to existing keys (the steady state) for a second figure.
const updates: Uint8Array[] = [];
for (let i = 0; i < 200_000; i++) {
  updates.push(
    encodeCommand({ v: 1, type: "kv.set", key: key((i * 7919) % KEYS), value: value(i), flags: 0n }),
  );
}
const t1 = performance.now();
let index = store.index;
for (const u of updates) store.apply(++index, u);
const updSecs = (performance.now() - t1) / 1000;
console.log(
  `apply: ${updates.length} overwrites in ${updSecs.toFixed(2)} s = ${Math.round(updates.length / updSecs)} applies/s`,
);

const t2 = performance.now();
const chunks: Uint8Array[] = [];
let size = 0;
for (const chunk of store.snapshot()) {
  chunks.push(chunk);
  size += chunk.byteLength;
}
const snapSecs = (performance.now() - t2) / 1000;
console.log(`snapshot write: ${snapSecs.toFixed(2)} s, ${mb(size)} in ${chunks.length} chunks`);

const t3 = performance.now();
const restored = new StateStore();
restored.restoreSync(chunks);
const restoreSecs = (performance.now() - t3) / 1000;
console.log(
  `snapshot restore: ${restoreSecs.toFixed(2)} s (${restored.view().kvKeys("bench/", "/").value.length} prefix, index ${restored.index})`,
);
