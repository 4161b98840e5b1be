export type MemberState = "alive" | "suspect" | "dead" | "left";
export const MEMBER_STATES: readonly MemberState[] = ["alive", "suspect", "dead", "left"];

/** Small string map carried with alive messages: role, dc, port, raft voter, build version, ... */
export type Tags = Readonly<Record<string, string>>;

export interface Member {
  readonly name: string;
  /** Gossip address ("host:port") this member is reached at. */
  readonly address: string;
  readonly incarnation: number;
  readonly state: MemberState;
  /** Local clock time of the last state change. */
  readonly stateChangedAt: number;
  readonly tags: Tags;
}

/** One member as carried in a push-pull full-state exchange. */
export interface MemberSnapshot {
  node: string;
  address: string;
  incarnation: number;
  state: MemberState;
  tags: Tags;
}

export type Message =
  /** Direct probe. `node` names the intended target so a misrouted ping (address reuse) is not acked. */
  | { t: "ping"; seq: number; node: string }
  /** Please probe `node` at `address` for me and relay the outcome (ack, or nack if it stays silent). */
  | { t: "ping-req"; seq: number; node: string; address: string }
  /** `payload` carries the acker's ping-delegate data (its Vivaldi coordinate) on direct acks. */
  | { t: "ack"; seq: number; payload?: unknown }
  | { t: "nack"; seq: number }
  | { t: "alive"; node: string; address: string; incarnation: number; tags: Tags }
  | { t: "suspect"; node: string; incarnation: number; from: string }
  /** `from === node` means a graceful leave. */
  | { t: "dead"; node: string; incarnation: number; from: string }
  /** Generic application broadcast (user events ride on it), de-duplicated by (origin, id). */
  | { t: "user"; origin: string; id: number; payload: unknown }
  /** Full-state sync: a request (reply=false) is answered by a reply carrying the responder's state. */
  | { t: "push-pull"; seq: number; reply: boolean; join: boolean; states: MemberSnapshot[] }
  /** An application payload for one member only (answers to a broadcast question, as Serf's query responses). */
  | { t: "direct"; payload: unknown };

export type MessageType = Message["t"];

/** Messages are sent in packets: one or more messages to one address (memberlist's compound messages). */
export interface Outbound {
  to: string;
  packet: Message[];
}

export type MemberEventType =
  | "member-join"
  | "member-update"
  | "member-failed"
  | "member-leave"
  | "member-reap";

export type CoreEvent =
  | { type: MemberEventType; member: Member }
  | { type: "user-message"; origin: string; payload: unknown }
  /** `from` is the sender's gossip address. */
  | { type: "direct-message"; from: string; payload: unknown }
  /** A push-pull this member started (join or periodic) got its reply. */
  | { type: "push-pull-complete"; seq: number; join: boolean };

export interface Output {
  send: Outbound[];
  events: CoreEvent[];
}

/** memberlist's PingDelegate: what a member adds to its acks, and what a prober learns from one. */
export interface PingDelegate {
  ackPayload(): unknown;
  pingComplete(node: string, rttMs: number, payload: unknown): void;
}
