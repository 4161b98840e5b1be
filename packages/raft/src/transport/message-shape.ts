import type { Entry, Message, MessageType, RejectReason } from "../core/types.js";

// Messages from the network are checked field by field before the core sees them: the core trusts its
// inputs, and one malformed message must cost only the connection that carried it.

type Fields = Record<string, unknown>;

const uint = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const str = (v: unknown) => typeof v === "string";
const bool = (v: unknown) => typeof v === "boolean";
const strings = (v: unknown) => Array.isArray(v) && v.every(str);

const REJECT_REASONS: ReadonlySet<string> = new Set<RejectReason>([
  "not-leader",
  "transferring",
  "conf-pending",
  "term-not-committed",
  "learner-behind",
  "unknown-node",
  "invalid-change",
  "no-leader",
]);
const ENTRY_KINDS: ReadonlySet<string> = new Set<Entry["kind"]>(["normal", "conf", "noop"]);

function isEntry(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Fields;
  return (
    uint(e.term) &&
    uint(e.index) &&
    str(e.kind) &&
    ENTRY_KINDS.has(e.kind as string) &&
    e.data instanceof Uint8Array
  );
}

function isSnapshotMeta(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  const m = v as Fields;
  if (!uint(m.index) || !uint(m.term) || typeof m.conf !== "object" || m.conf === null) return false;
  const c = m.conf as Fields;
  return strings(c.voters) && strings(c.learners);
}

function isAddressBook(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  return Object.values(v).every(str);
}

const BODY: Record<MessageType, (m: Fields) => boolean> = {
  "pre-vote": (m) => uint(m.lastIndex) && uint(m.lastTerm) && bool(m.transfer),
  vote: (m) => uint(m.lastIndex) && uint(m.lastTerm) && bool(m.transfer),
  "pre-vote-resp": (m) => bool(m.reject),
  "vote-resp": (m) => bool(m.reject),
  append: (m) =>
    uint(m.prevIndex) &&
    uint(m.prevTerm) &&
    uint(m.commit) &&
    uint(m.sent) &&
    Array.isArray(m.entries) &&
    m.entries.every(isEntry),
  "append-resp": (m) =>
    uint(m.index) && bool(m.reject) && uint(m.hintIndex) && uint(m.hintTerm) && uint(m.sent),
  heartbeat: (m) => uint(m.commit) && uint(m.sent) && uint(m.read),
  "heartbeat-resp": (m) => uint(m.sent) && uint(m.read),
  snapshot: (m) => isSnapshotMeta(m.snapshot) && (m.addresses === undefined || isAddressBook(m.addresses)),
  "timeout-now": () => true,
  "read-index": (m) => str(m.ctx) && bool(m.lease),
  "read-index-resp": (m) =>
    str(m.ctx) &&
    uint(m.index) &&
    (m.reject === null || (str(m.reject) && REJECT_REASONS.has(m.reject as string))),
};

export function isRaftMessage(v: unknown): v is Message {
  if (typeof v !== "object" || v === null) return false;
  const m = v as Fields;
  if (!str(m.from) || !str(m.to) || !uint(m.term) || !str(m.type)) return false;
  return Object.hasOwn(BODY, m.type as string) && BODY[m.type as MessageType](m);
}
