import type { UserEvent } from "@cairn/api";
import { pack } from "msgpackr";

/** The tag that marks a gossip user message as a user event. */
export const EVENT_MESSAGE = "user-event";

/**
 * Serf's default user-event size limit, which Consul keeps: the event name with Consul's prefix plus the
 * encoded event may not exceed it. The payload is therefore small (a few hundred bytes at most).
 */
export const USER_EVENT_SIZE_LIMIT = 512;
const CONSUL_EVENT_PREFIX = "consul:event:";

/** What one agent gossips to the others: the event with its Lamport time. */
export interface EventMessage extends UserEvent {
  readonly t: typeof EVENT_MESSAGE;
}

export function toMessage(event: UserEvent): EventMessage {
  return { t: EVENT_MESSAGE, ...event };
}

/**
 * The size Serf checks, counted as Consul sends the event: the prefixed name plus the msgpack of the event
 * with its short field names, empty optional fields left out.
 */
export function gossipSize(event: Omit<UserEvent, "LTime">): number {
  const encoded: Record<string, unknown> = { ID: event.ID, n: event.Name };
  if (event.Payload !== null && event.Payload.length > 0) encoded.p = event.Payload;
  if (event.NodeFilter !== "") encoded.nf = event.NodeFilter;
  if (event.ServiceFilter !== "") encoded.sf = event.ServiceFilter;
  if (event.TagFilter !== "") encoded.tf = event.TagFilter;
  encoded.v = event.Version;
  return Buffer.byteLength(CONSUL_EVENT_PREFIX + event.Name) + pack(encoded).length;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type Decoded = { ok: true; event: UserEvent } | { ok: false; reason: "not-an-event" | "malformed" };

/**
 * Reads a gossiped user message strictly: anything not tagged as an event is left to other consumers, and
 * an event with a missing or mistyped field, a non-UUID ID or a size over the limit is malformed.
 */
export function decodeMessage(payload: unknown): Decoded {
  if (typeof payload !== "object" || payload === null) return { ok: false, reason: "not-an-event" };
  const m = payload as Record<string, unknown>;
  if (m.t !== EVENT_MESSAGE) return { ok: false, reason: "not-an-event" };
  const { ID, Name, Payload, NodeFilter, ServiceFilter, TagFilter, Version, LTime } = m;
  if (
    typeof ID !== "string" ||
    !UUID.test(ID) ||
    typeof Name !== "string" ||
    Name === "" ||
    !(Payload === null || Payload instanceof Uint8Array) ||
    typeof NodeFilter !== "string" ||
    typeof ServiceFilter !== "string" ||
    typeof TagFilter !== "string" ||
    !Number.isSafeInteger(Version) ||
    (Version as number) < 1 ||
    !Number.isSafeInteger(LTime) ||
    (LTime as number) < 0
  ) {
    return { ok: false, reason: "malformed" };
  }
  const event: UserEvent = {
    ID,
    Name,
    // A copy: a decoder's view may hold the whole received frame alive.
    Payload: Payload === null || Payload.length === 0 ? null : Buffer.from(Payload),
    NodeFilter,
    ServiceFilter,
    TagFilter,
    Version: Version as number,
    LTime: LTime as number,
  };
  if (gossipSize(event) > USER_EVENT_SIZE_LIMIT) return { ok: false, reason: "malformed" };
  return { ok: true, event };
}
