import type { Entry } from "../../src/core/types.js";

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

export function entryHash(prev: number, e: Entry): number {
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

/** The write id an entry carries, or null for noop/conf entries. */
export function decodeWrite(e: Entry): number | null {
  return e.kind === "normal" ? Number(decoder.decode(e.data).slice(1)) : null;
}
