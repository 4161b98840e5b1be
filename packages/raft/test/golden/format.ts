import { decodeConfEntry } from "../../src/core/conf.js";
import type {
  ConfState,
  Entry,
  HardState,
  Message,
  RaftStatus,
  ReadState,
  Ready,
  SnapshotMeta,
} from "../../src/core/types.js";

// One printed form for everything a trace shows, so every scenario file reads the same way.
// Positions are written index@term, the way the Raft paper's figures label log slots.

const decoder = new TextDecoder();
const MAX_PAYLOAD = 16;

/** Node ids are numbers in scenarios: order them as numbers, so 10 sorts after 9. */
export function byId(a: string, b: string): number {
  return a.localeCompare(b, "en", { numeric: true });
}

export function list(ids: readonly string[]): string {
  return `(${[...ids].sort(byId).join(",")})`;
}

export function formatConf(c: ConfState): string {
  const learners = c.learners.length > 0 ? ` learners=${list(c.learners)}` : "";
  return `voters=${list(c.voters)}${learners}`;
}

export function payload(data: Uint8Array): string {
  const s = decoder.decode(data);
  return JSON.stringify(s.length > MAX_PAYLOAD ? `${s.slice(0, MAX_PAYLOAD)}...` : s);
}

export function formatEntry(e: Entry): string {
  const at = `${e.index}@${e.term}`;
  switch (e.kind) {
    case "noop":
      return `${at} noop`;
    case "normal":
      return `${at} ${payload(e.data)}`;
    case "conf": {
      const { change, conf } = decodeConfEntry(e.data);
      const what = change === null ? "bootstrap" : `${change.op} ${change.node}`;
      return `${at} conf ${what} -> ${formatConf(conf)}`;
    }
  }
}

export function formatSnapshot(s: SnapshotMeta): string {
  return `${s.index}@${s.term} ${formatConf(s.conf)}`;
}

export function formatHardState(h: HardState): string {
  return `term=${h.term} vote=${h.vote ?? "none"} commit=${h.commit}`;
}

export function formatMessage(m: Message): string {
  const head = `${m.from}->${m.to} ${m.type} term=${m.term}`;
  switch (m.type) {
    case "pre-vote":
    case "vote":
      return `${head} last=${m.lastIndex}@${m.lastTerm}${m.transfer ? " transfer" : ""}`;
    case "pre-vote-resp":
    case "vote-resp":
      return `${head} ${m.reject ? "rejected" : "granted"}`;
    case "append": {
      const entries = m.entries.length > 0 ? ` [${m.entries.map(formatEntry).join(", ")}]` : " []";
      return `${head} prev=${m.prevIndex}@${m.prevTerm} commit=${m.commit}${entries}${sent(m.sent)}`;
    }
    case "append-resp":
      if (m.reject)
        return `${head} rejected index=${m.index} hint=${m.hintIndex}@${m.hintTerm}${sent(m.sent)}`;
      return `${head} index=${m.index}${sent(m.sent)}`;
    case "heartbeat":
      return `${head} commit=${m.commit}${sent(m.sent)}${m.read > 0 ? ` read=${m.read}` : ""}`;
    case "heartbeat-resp":
      return `${head}${sent(m.sent)}${m.read > 0 ? ` read=${m.read}` : ""}`;
    case "snapshot":
      return `${head} snapshot=${formatSnapshot(m.snapshot)}`;
    case "timeout-now":
      return head;
    case "read-index":
      return `${head} ctx=${m.ctx}${m.lease ? " lease" : ""}`;
    case "read-index-resp":
      return `${head} ctx=${m.ctx} ${m.reject === null ? `index=${m.index}` : `rejected ${m.reject}`}`;
  }
}

/** The leader's tick clock at sending (echoed back for the read lease); 0 means none and is left out. */
function sent(n: number): string {
  return n > 0 ? ` sent=${n}` : "";
}

export function formatReadState(r: ReadState): string {
  if ("error" in r) return `ctx=${r.ctx} rejected ${r.error} leader=${r.leader ?? "none"}`;
  return `ctx=${r.ctx} index=${r.index}`;
}

/**
 * Within one Ready, messages to different peers carry no order, so they are listed by recipient (a stable
 * sort: those to one peer keep the order the core produced them in, which does matter).
 */
export function sortMessages(ms: readonly Message[]): Message[] {
  return [...ms].sort((a, b) => byId(a.to, b.to));
}

/** A Ready as indented lines, one fact per line; empty parts are left out. */
export function formatReady(r: Ready): string[] {
  const out: string[] = [];
  if (r.softState) out.push(`soft state: role=${r.softState.role} leader=${r.softState.leader ?? "none"}`);
  if (r.hardState) out.push(`hard state: ${formatHardState(r.hardState)}`);
  if (r.snapshot) out.push(`snapshot: ${formatSnapshot(r.snapshot)}`);
  section(out, "entries", r.entries.map(formatEntry));
  section(out, "committed", r.committed.map(formatEntry));
  section(out, "messages", sortMessages(r.messages).map(formatMessage));
  section(out, "read states", r.readStates.map(formatReadState));
  section(out, "after write", sortMessages(r.persistedMessages).map(formatMessage));
  return out;
}

function section(out: string[], title: string, lines: string[]): void {
  if (lines.length === 0) return;
  out.push(`${title}:`);
  for (const l of lines) out.push(`  ${l}`);
}

export function formatStatus(s: RaftStatus): string[] {
  const out = [
    `${s.id}: ${s.role} term=${s.term} vote=${s.vote ?? "none"} leader=${s.leader ?? "none"}`,
    `  commit=${s.commit} applied=${s.applied} log=[${s.firstIndex}..${s.lastIndex}] ${formatConf(s.conf)}`,
  ];
  if (s.leadTransferee !== null) out.push(`  transferring to ${s.leadTransferee}`);
  for (const id of Object.keys(s.progress ?? {}).sort(byId)) {
    const p = s.progress![id]!;
    const snap = p.state === "snapshot" ? ` pending-snapshot=${p.pendingSnapshot}` : "";
    const active = p.recentActive ? " active" : "";
    out.push(`  ${id}: ${p.state} match=${p.match} next=${p.next} inflight=${p.inflight}${snap}${active}`);
  }
  return out;
}
