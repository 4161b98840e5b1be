import { randomUUID } from "node:crypto";
import { type EventBackend, type UserEvent, UserEventError, type UserEventRequest } from "@cairn/api";
import type { Logger } from "pino";
import { agentMatches, compileFilters, type LocalService } from "./filters.js";
import { LamportClock } from "./lamport-clock.js";
import { decodeMessage, gossipSize, toMessage, USER_EVENT_SIZE_LIMIT } from "./wire.js";

/** Consul keeps the 256 most recent events per agent. */
export const EVENT_BUFFER_SIZE = 256;
/** Event IDs remembered to ignore a redelivery; well past the buffer so a re-gossiped old event stays out. */
const SEEN_IDS = 4 * EVENT_BUFFER_SIZE;
/** Consul's remote-exec event: `consul exec` traffic, never listed. */
const REMOTE_EXEC = "_rexec";
const USER_EVENT_VERSION = 1;

export interface EventLogOptions {
  nodeName: string;
  /** This agent's registered services, read when an event carries a service filter. */
  localServices: () => readonly LocalService[];
  /** Gossips a message to every other agent (not back to this one). */
  broadcast: (message: unknown) => void;
  uuid?: () => string;
  logger?: Logger;
}

export interface EventLogStats {
  /** Events recorded here (fired or received, filters passed). */
  recorded: number;
  /** Received events that were already seen. */
  duplicates: number;
  /** Events this agent's filters turned away. */
  filtered: number;
  /** Received event messages that failed validation. */
  malformed: number;
}

/**
 * One agent's user events: fires them into gossip, takes those other agents gossip, applies the node,
 * service and tag filters against this agent, and keeps the most recent that pass for /v1/event/list.
 */
export class EventLog implements EventBackend {
  readonly #options: EventLogOptions;
  readonly #uuid: () => string;
  readonly #clock = new LamportClock();
  readonly #buffer: UserEvent[] = [];
  readonly #seen = new Set<string>();
  #wake: { promise: Promise<void>; resolve: () => void } | undefined;
  readonly #stats: EventLogStats = { recorded: 0, duplicates: 0, filtered: 0, malformed: 0 };

  constructor(options: EventLogOptions) {
    this.#options = options;
    this.#uuid = options.uuid ?? randomUUID;
  }

  fire(request: UserEventRequest): UserEvent {
    if (request.name === "") throw new UserEventError("User event missing name");
    const filters = compileFilters(request.nodeFilter, request.serviceFilter, request.tagFilter);
    const unstamped = {
      ID: this.#uuid(),
      Name: request.name,
      Payload: request.payload === null || request.payload.length === 0 ? null : request.payload,
      NodeFilter: request.nodeFilter,
      ServiceFilter: request.serviceFilter,
      TagFilter: request.tagFilter,
      Version: USER_EVENT_VERSION,
    };
    if (gossipSize(unstamped) > USER_EVENT_SIZE_LIMIT) {
      throw new UserEventError(
        `user event exceeds configured limit of ${USER_EVENT_SIZE_LIMIT} bytes before encoding`,
      );
    }
    const event: UserEvent = { ...unstamped, LTime: this.#clock.tick() };
    try {
      this.#options.broadcast(toMessage(event));
    } catch (err) {
      throw new UserEventError(
        `error broadcasting event: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    this.#remember(event.ID);
    // Gossip does not deliver to the sender: this agent takes its own event through the same filters.
    if (agentMatches(filters, this.#options.nodeName, this.#options.localServices)) this.#record(event);
    else this.#stats.filtered++;
    return event;
  }

  /** A user message from gossip. Returns whether it was recorded here. */
  receive(payload: unknown): boolean {
    const decoded = decodeMessage(payload);
    if (!decoded.ok) {
      if (decoded.reason === "malformed") {
        this.#stats.malformed++;
        this.#options.logger?.warn("dropping a malformed user event from gossip");
      }
      return false;
    }
    const event = decoded.event;
    this.#clock.witness(event.LTime);
    if (this.#seen.has(event.ID)) {
      this.#stats.duplicates++;
      return false;
    }
    this.#remember(event.ID);
    if (event.Version > USER_EVENT_VERSION) {
      this.#options.logger?.warn(
        { event: event.Name, version: event.Version },
        "user event version may have unsupported features",
      );
    }
    if (!this.#passes(event)) {
      this.#stats.filtered++;
      return false;
    }
    this.#record(event);
    return true;
  }

  events(): readonly UserEvent[] {
    return this.#buffer.slice();
  }

  changed(): Promise<void> {
    if (this.#wake === undefined) {
      let resolve: () => void = () => {};
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.#wake = { promise, resolve };
    }
    return this.#wake.promise;
  }

  /** The Lamport time the next fired event gets. */
  get lamportTime(): number {
    return this.#clock.time();
  }

  get stats(): Readonly<EventLogStats> {
    return { ...this.#stats };
  }

  #passes(event: UserEvent): boolean {
    try {
      const filters = compileFilters(event.NodeFilter, event.ServiceFilter, event.TagFilter);
      return agentMatches(filters, this.#options.nodeName, this.#options.localServices);
    } catch (err) {
      // Another agent's regular expression this runtime cannot compile: as Consul, the event is skipped.
      this.#options.logger?.warn({ err, event: event.Name }, "user event filter does not compile");
      return false;
    }
  }

  #record(event: UserEvent): void {
    if (event.Name === REMOTE_EXEC) return;
    this.#options.logger?.debug({ event: event.Name, id: event.ID }, "new user event");
    this.#buffer.push(event);
    if (this.#buffer.length > EVENT_BUFFER_SIZE) this.#buffer.shift();
    this.#stats.recorded++;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.resolve();
  }

  #remember(id: string): void {
    this.#seen.add(id);
    if (this.#seen.size > SEEN_IDS) {
      const oldest = this.#seen.values().next().value;
      if (oldest !== undefined) this.#seen.delete(oldest);
    }
  }
}
