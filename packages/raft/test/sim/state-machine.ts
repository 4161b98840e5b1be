import type { Entry } from "../../src/core/types.js";
import type { SnapshotOutput, StateMachine } from "../../src/node/state-machine.js";

/**
 * The simulated application: a running hash over every applied entry. Two servers that applied the
 * same entries in the same order hold the same (index, hash); any divergence shows up as a mismatch.
 */
export interface SmState {
  index: number;
  hash: number;
}

export function hashBytes(h: number, data: Uint8Array): number {
  for (let i = 0; i < data.length; i++) h = Math.imul(h ^ data[i]!, 16777619);
  return h >>> 0;
}

export function entryHash(prev: number, e: Pick<Entry, "index" | "term" | "kind" | "data">): number {
  let h = Math.imul(prev ^ e.term, 16777619);
  h = Math.imul(h ^ e.index, 16777619);
  h = Math.imul(h ^ e.kind.length, 16777619);
  return hashBytes(h, e.data);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeWrite(id: number): Uint8Array {
  return encoder.encode(`w${id}`);
}

/** What the simulated state machine answers a write's proposer: where it applied and which write it was. */
export interface SmResult {
  index: number;
  write: number;
}

/** The state machine's side of the simulation: where applied entries are looked up and reported. */
export interface SmHost {
  sm: SmState;
  /** The term of the entry at `index` on this server's disk, or undefined if it is not durable there. */
  durableTerm(index: number): number | undefined;
  /** Snapshot file contents on this server's disk, by path. */
  readonly files: ReadonlyMap<string, Uint8Array>;
  applied(index: number, term: number): void;
  restored(sm: SmState): void;
  fail(message: string): void;
}

/**
 * The StateMachine the real driver applies to: a running hash over the normal entries applied. Each apply
 * must be of an entry already durable on this server (the driver applies only what is on disk here).
 */
export class SimStateMachine implements StateMachine<SmResult> {
  constructor(private readonly host: SmHost) {}

  apply(index: number, data: Uint8Array): SmResult {
    const h = this.host;
    const term = h.durableTerm(index);
    if (term === undefined) h.fail(`applied entry ${index}, which is not durable on this server`);
    if (index <= h.sm.index) h.fail(`applied entry ${index} after ${h.sm.index} (repeat)`);
    h.sm = { index, hash: entryHash(h.sm.hash, { index, term: term ?? -1, kind: "normal", data }) };
    h.applied(index, term ?? -1);
    return { index, write: Number(decoder.decode(data).slice(1)) };
  }

  snapshot(out: SnapshotOutput): Promise<void> {
    // Captured now, synchronously, as the interface requires.
    return out.write(encoder.encode(JSON.stringify(this.host.sm)));
  }

  async restore(file: string): Promise<void> {
    const bytes = this.host.files.get(file);
    if (!bytes) throw new Error(`no snapshot file ${file}`);
    const sm = JSON.parse(decoder.decode(bytes)) as SmState;
    this.host.sm = sm;
    this.host.restored(sm);
  }
}
