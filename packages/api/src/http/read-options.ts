import { parseDurationNs } from "@cairn/duration";
import { badRequest } from "./errors.js";
import type { Query } from "./query.js";

export type Consistency = "default" | "stale" | "consistent";

export interface ReadOptions {
  consistency: Consistency;
  /** With `stale`: the most staleness tolerated before the read falls back to default mode. */
  maxStaleMs: number | undefined;
  /** Blocking query: the index the client already has; 0n means "answer at once". */
  minIndex: bigint;
  /** Blocking query: how long to wait for a change, jitter included. */
  waitMs: number;
}

export const DEFAULT_WAIT_MS = 5 * 60_000;
export const MAX_WAIT_MS = 10 * 60_000;
/** Random extra wait up to wait/16 spreads out the herd of clients that all started together. */
export const WAIT_JITTER_FRACTION = 16;

/** Reads `stale`, `consistent`, `max_stale`, `index` and `wait` as Consul's HTTP layer does. */
export function parseReadOptions(query: Query, random: () => number): ReadOptions {
  let stale = query.has("stale");
  const consistent = query.has("consistent");
  let maxStaleMs: number | undefined;
  const maxStale = query.durationNs("max_stale", `Invalid max_stale value "${query.get("max_stale")}"`);
  if (maxStale !== undefined && maxStale > 0n) {
    stale = true;
    maxStaleMs = Number(maxStale / 1_000_000n);
  }
  if (stale && consistent) throw badRequest("Cannot specify ?stale with ?consistent, conflicting semantics.");
  if (consistent && query.has("cached")) {
    throw badRequest("Cannot specify ?cached with ?consistent, conflicting semantics.");
  }

  const waitNs = query.durationNs("wait", "Invalid wait time");
  let waitMs = waitNs === undefined || waitNs <= 0n ? DEFAULT_WAIT_MS : Number(waitNs) / 1e6;
  if (waitMs > MAX_WAIT_MS) waitMs = MAX_WAIT_MS;
  waitMs += Math.floor(random() * (waitMs / WAIT_JITTER_FRACTION));

  let minIndex = 0n;
  const index = query.get("index");
  if (index !== undefined && index !== "") {
    if (!/^[0-9]+$/.test(index) || BigInt(index) > (1n << 64n) - 1n) throw badRequest("Invalid index");
    minIndex = BigInt(index);
  }

  return {
    consistency: consistent ? "consistent" : stale ? "stale" : "default",
    maxStaleMs,
    minIndex,
    waitMs,
  };
}

/**
 * The wait, before jitter, of the blocking query a request URL (path and query) asks for: Consul's default
 * when it names none, at most the longest. Undefined when it is no blocking query (no `index` above 0); NaN
 * when its `wait` is malformed, which the server refuses at once. For code that sees a request only as its URL
 * (a client agent's tunnel, a forward to another datacenter).
 */
export function blockingWaitMs(url: string): number | undefined {
  const q = url.indexOf("?");
  // Most requests are no blocking query: those are told apart without parsing their query string.
  if (q < 0 || !url.includes("index=", q)) return undefined;
  const query = new URLSearchParams(url.slice(q + 1));
  const index = query.get("index");
  if (index === null || !/^0*[1-9][0-9]*$/.test(index)) return undefined;
  const wait = query.get("wait");
  if (wait === null || wait === "") return DEFAULT_WAIT_MS;
  try {
    const ns = parseDurationNs(wait);
    return ns > 0n ? Math.min(MAX_WAIT_MS, Number(ns / 1_000_000n)) : DEFAULT_WAIT_MS;
  } catch {
    return Number.NaN;
  }
}
