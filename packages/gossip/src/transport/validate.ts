import { MEMBER_STATES, type MemberSnapshot, type Message, type Tags } from "../core/types.js";

const MAX_NAME = 256;

function isName(v: unknown): v is string {
  return typeof v === "string" && v.length > 0 && v.length <= MAX_NAME;
}

function isCounter(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

function isTags(v: unknown): v is Tags {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  return Object.values(v).every((x) => typeof x === "string");
}

function isSnapshot(v: unknown): v is MemberSnapshot {
  if (typeof v !== "object" || v === null) return false;
  const s = v as Record<string, unknown>;
  return (
    isName(s.node) &&
    isName(s.address) &&
    isCounter(s.incarnation) &&
    MEMBER_STATES.includes(s.state as MemberSnapshot["state"]) &&
    isTags(s.tags)
  );
}

/** Structural check of one decoded message: anything else is an impossible claim and is dropped. */
export function isMessage(v: unknown): v is Message {
  if (typeof v !== "object" || v === null) return false;
  const m = v as Record<string, unknown>;
  switch (m.t) {
    case "ping":
      return isCounter(m.seq) && isName(m.node);
    case "ping-req":
      return isCounter(m.seq) && isName(m.node) && isName(m.address);
    case "ack":
    case "nack":
      return isCounter(m.seq);
    case "alive":
      return isName(m.node) && isName(m.address) && isCounter(m.incarnation) && isTags(m.tags);
    case "suspect":
    case "dead":
      return isName(m.node) && isCounter(m.incarnation) && isName(m.from);
    case "user":
      return isName(m.origin) && isCounter(m.id);
    case "direct":
      return "payload" in m;
    case "push-pull":
      return (
        isCounter(m.seq) &&
        typeof m.reply === "boolean" &&
        typeof m.join === "boolean" &&
        Array.isArray(m.states) &&
        m.states.every(isSnapshot)
      );
    default:
      return false;
  }
}
