import type { Context } from "hono";

/** What a read response reports about the data it was served from. */
export interface ReadMeta {
  /** Highest modify index the read covered (the blocking-query index). */
  index: number | bigint;
  knownLeader: boolean;
  lastContactMs: number;
}

/**
 * Sets the index, known-leader and last-contact headers under both the X-Service-* and X-Consul-* names.
 * The index is never 0: a client that gets 0 back would send `?index=0` and never block.
 */
export function setReadMeta(c: Context, meta: ReadMeta): void {
  const index = meta.index === 0 || meta.index === 0n ? "1" : meta.index.toString();
  c.header("X-Service-Index", index);
  c.header("X-Consul-Index", index);
  setLeaderMeta(c, meta.knownLeader, meta.lastContactMs);
}

/** Known-leader and last-contact only (read-only transactions carry no index). */
export function setLeaderMeta(c: Context, knownLeader: boolean, lastContactMs: number): void {
  const known = knownLeader ? "true" : "false";
  const contact = String(Math.max(0, Math.floor(lastContactMs)));
  c.header("X-Service-KnownLeader", known);
  c.header("X-Consul-KnownLeader", known);
  c.header("X-Service-LastContact", contact);
  c.header("X-Consul-LastContact", contact);
}
