import type { Context } from "hono";
import type { PreparedAnswer } from "./prepared-answer.js";

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

/**
 * `answer` with `meta`'s last contact. A memoized read answer (kv.ts) is shared by every request for the same
 * question until the next write, but a follower's time since it last heard from the leader moves every
 * millisecond: kept in the memo's question, it made a follower's memo fill up with one key's answers a
 * millisecond apart, after which every stale read was read, encoded and rendered again until the next write.
 * So the memo is keyed without it and the two headers are swapped in here, the body staying the shared one;
 * the last such copy of each answer is kept, so that the reads of one millisecond share one (and its
 * rendering, wire.ts).
 */
export function withLastContact(answer: PreparedAnswer, meta: ReadMeta): PreparedAnswer {
  const contact = lastContact(meta.lastContactMs);
  if (answer.headers["X-Consul-LastContact"] === contact) return answer;
  const previous = withContact.get(answer);
  if (previous?.headers["X-Consul-LastContact"] === contact) return previous;
  const copy: PreparedAnswer = {
    ...answer,
    headers: Object.freeze({
      ...answer.headers,
      "X-Service-LastContact": contact,
      "X-Consul-LastContact": contact,
    }),
  };
  withContact.set(answer, copy);
  return copy;
}

/** The last copy `withLastContact` made of each answer. */
const withContact = new WeakMap<PreparedAnswer, PreparedAnswer>();

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
