/**
 * The seam between /v1/event and the agent's user-event log. Events travel by gossip, not Raft: each agent
 * keeps the most recent events that passed its own filters, so two agents may list different events.
 */

/** A user event as Consul's HTTP API shows it (Payload is base64 in JSON, null when empty). */
export interface UserEvent {
  readonly ID: string;
  readonly Name: string;
  readonly Payload: Uint8Array | null;
  readonly NodeFilter: string;
  readonly ServiceFilter: string;
  readonly TagFilter: string;
  readonly Version: number;
  /** Lamport time the event was sent at; 0 in the answer to a fire (as Consul). */
  readonly LTime: number;
}

/** What a client asks to fire: the name, an optional payload and the three regular-expression filters. */
export interface UserEventRequest {
  readonly name: string;
  readonly payload: Uint8Array | null;
  readonly nodeFilter: string;
  readonly serviceFilter: string;
  readonly tagFilter: string;
}

export interface EventBackend {
  /**
   * Sends the event to every agent and records it here if it passes this agent's filters. Throws
   * UserEventError for a request Consul refuses (bad filter, tag filter without service filter, too large).
   */
  fire(request: UserEventRequest): UserEvent;
  /** The events this agent has recorded, oldest first (at most Consul's 256). */
  events(): readonly UserEvent[];
  /** Resolves when the next event is recorded; one promise shared by every waiter until then. */
  changed(): Promise<void>;
}

/** A fire request the event layer refuses; the API answers 500 with the message, as Consul does. */
export class UserEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserEventError";
  }
}

/**
 * Consul's blocking index of an event list: the 128-bit event UUID folded to 64 bits by XOR of its two
 * halves. Not monotonic, so a blocking list waits while the last event's index equals the client's.
 */
export function eventIndex(id: string): bigint {
  const hex = id.replaceAll("-", "");
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new Error(`event ID ${JSON.stringify(id)} is not a UUID`);
  return BigInt(`0x${hex.slice(0, 16)}`) ^ BigInt(`0x${hex.slice(16)}`);
}
