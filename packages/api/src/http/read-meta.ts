import type { Context } from "hono";

/** What a read response reports about the data it was served from. */
export interface ReadMeta {
  /** Highest modify index the read covered (the blocking-query index). */
  index: number | bigint;
  knownLeader: boolean;
  lastContactMs: number;
}

/**
 * The index, known-leader and last-contact headers under both the X-Service-* and X-Consul-* names, as a
 * plain object (what a prepared response carries). The index is never 0: a client that gets 0 back would
 * send `?index=0` and never block.
 */
export function readMetaHeaders(meta: ReadMeta): Record<string, string> {
  const index = meta.index === 0 || meta.index === 0n ? "1" : meta.index.toString();
  const known = meta.knownLeader ? "true" : "false";
  const contact = lastContact(meta.lastContactMs);
  return {
    "X-Service-Index": index,
    "X-Consul-Index": index,
    "X-Service-KnownLeader": known,
    "X-Consul-KnownLeader": known,
    "X-Service-LastContact": contact,
    "X-Consul-LastContact": contact,
  };
}

/** `readMetaHeaders` of a JSON answer: with its Content-Type (a fresh object each call). */
export function jsonReadHeaders(meta: ReadMeta): Record<string, string> {
  const headers = readMetaHeaders(meta);
  headers["Content-Type"] = "application/json";
  return headers;
}

/** Sets the headers of `readMetaHeaders` on the context. */
export function setReadMeta(c: Context, meta: ReadMeta): void {
  for (const [name, value] of Object.entries(readMetaHeaders(meta))) c.header(name, value);
}

/** Known-leader and last-contact only (read-only transactions carry no index). */
export function setLeaderMeta(c: Context, knownLeader: boolean, lastContactMs: number): void {
  const known = knownLeader ? "true" : "false";
  const contact = lastContact(lastContactMs);
  c.header("X-Service-KnownLeader", known);
  c.header("X-Consul-KnownLeader", known);
  c.header("X-Service-LastContact", contact);
  c.header("X-Consul-LastContact", contact);
}

function lastContact(ms: number): string {
  return String(Math.max(0, Math.floor(ms)));
}
