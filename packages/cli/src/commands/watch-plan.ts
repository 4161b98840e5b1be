// What `cairn watch` asks and when it runs its handler, as Consul's watch plans decide it. No I/O here: the
// command feeds responses in and gets back the data to hand on, so the rules are tested without processes.
import { writeJson } from "@cairn/json";
import { kvPath } from "../http.js";
import { asString, field, isObject, type JsonValue } from "../json.js";

export const WATCH_TYPES = ["key", "keyprefix", "services", "nodes", "service", "checks", "event"] as const;
export type WatchType = (typeof WATCH_TYPES)[number];

/** The parameters given on the command line (only those set), as Consul's watch parser receives them. */
export type WatchParams = Map<string, string | boolean>;

export class WatchParseError extends Error {}

/** One blocking request of a watch, and how its answer becomes the handler's data. */
export interface WatchPlan {
  type: WatchType;
  path: string;
  query: Record<string, string | undefined>;
  /** Whether `-stale` applies (every type but event). */
  stale: boolean;
  /** A 404 is an answer (a missing key), not an error. */
  notFoundIsEmpty: boolean;
  /** The handler's data from the response body (undefined for a 404). */
  shape(body: JsonValue | undefined): JsonValue;
}

/**
 * Builds the plan from the parameters, consuming each one a type knows; anything left over is refused with
 * Consul's `Invalid parameters: [...]`, so `-type=services -key=x` fails as with consul.
 */
export function parseWatch(input: WatchParams): WatchPlan {
  const params = new Map(input);
  const take = (name: string): string => {
    const v = params.get(name);
    params.delete(name);
    return typeof v === "string" ? v : "";
  };
  const takeBool = (name: string): boolean => {
    const v = params.get(name);
    params.delete(name);
    return v === true;
  };
  take("datacenter");
  take("token");
  const type = take("type");
  if (type === "") throw new WatchParseError("Watch type must be specified");
  if (!(WATCH_TYPES as readonly string[]).includes(type)) {
    throw new WatchParseError(`Unsupported watch type: ${type}`);
  }
  const plan = planFor(type as WatchType, take, takeBool);
  if (params.size > 0)
    throw new WatchParseError(`Invalid parameters: [${[...params.keys()].sort().join(" ")}]`);
  return plan;
}

function planFor(
  type: WatchType,
  take: (name: string) => string,
  takeBool: (name: string) => boolean,
): WatchPlan {
  const base = { type, query: {}, notFoundIsEmpty: false, shape: (b: JsonValue | undefined) => b ?? null };
  switch (type) {
    case "key": {
      const stale = takeBool("stale");
      const key = take("key");
      if (key === "") throw new WatchParseError("Must specify a single key to watch");
      return {
        ...base,
        path: kvPath(key),
        stale,
        notFoundIsEmpty: true,
        shape: (b) => (Array.isArray(b) && b[0] !== undefined ? kvPair(b[0]) : null),
      };
    }
    case "keyprefix": {
      const stale = takeBool("stale");
      const prefix = take("prefix");
      if (prefix === "") throw new WatchParseError("Must specify a single prefix to watch");
      return {
        ...base,
        path: kvPath(prefix),
        query: { recurse: "" },
        stale,
        notFoundIsEmpty: true,
        shape: (b) => (Array.isArray(b) ? b.map(kvPair) : null),
      };
    }
    case "services":
      return { ...base, path: "/v1/catalog/services", stale: takeBool("stale") };
    case "nodes":
      return { ...base, path: "/v1/catalog/nodes", stale: takeBool("stale") };
    case "service": {
      const stale = takeBool("stale");
      const service = take("service");
      if (service === "") throw new WatchParseError("Must specify a single service to watch");
      const tag = take("tag");
      const passing = takeBool("passingonly");
      return {
        ...base,
        path: `/v1/health/service/${encodeURIComponent(service)}`,
        query: { tag: tag || undefined, passing: passing ? "1" : undefined },
        stale,
      };
    }
    case "checks": {
      const stale = takeBool("stale");
      const service = take("service");
      let state = take("state");
      if (service !== "" && state !== "") throw new WatchParseError("Cannot specify service and state");
      if (service === "" && state === "") state = "any";
      const tag = take("tag");
      return {
        ...base,
        path:
          state !== ""
            ? `/v1/health/state/${encodeURIComponent(state)}`
            : `/v1/health/checks/${encodeURIComponent(service)}`,
        query: { tag: tag || undefined },
        stale,
      };
    }
    case "event": {
      // The stale setting does not apply to events: `-stale` is left over and refused, as in Consul.
      const name = take("name");
      return { ...base, path: "/v1/event/list", query: { name: name || undefined }, stale: false };
    }
  }
}

/** A KV entry in the field order of Consul's Go client (what `consul watch` re-encodes). */
function kvPair(v: JsonValue): JsonValue {
  const o = isObject(v) ? v : {};
  const pair: { [key: string]: JsonValue } = {
    Key: asString(field(o, "Key")),
    CreateIndex: field(o, "CreateIndex") ?? 0,
    ModifyIndex: field(o, "ModifyIndex") ?? 0,
    LockIndex: field(o, "LockIndex") ?? 0,
    Flags: field(o, "Flags") ?? 0,
    Value: field(o, "Value") ?? null,
    Session: asString(field(o, "Session")),
  };
  for (const optional of ["Namespace", "Partition"]) {
    const value = asString(field(o, optional));
    if (value !== "") pair[optional] = value;
  }
  return pair;
}

/** The next step of a watch after one answer. */
export type Observation = { run: false } | { run: true; index: bigint; data: JsonValue };

/**
 * Consul's watch plan loop: an answer whose index equals the last one is ignored; otherwise the index is
 * kept for the next request and, unless the data is the same as last time, the handler runs. An event
 * watch hands on only the events after the last one the previous answer ended with (the event Consul
 * finds by the previous index, which is derived from that event's ID).
 */
export class WatchProgress {
  #lastIndex: bigint | undefined;
  #lastEventId: string | undefined;
  #lastResult: string | undefined;

  constructor(private readonly plan: WatchPlan) {}

  /** The `index` to block on; 0 (no blocking) before the first answer and after an error. */
  get waitIndex(): bigint {
    return this.#lastIndex ?? 0n;
  }

  observe(index: bigint, body: JsonValue | undefined): Observation {
    let data = this.plan.shape(body);
    let lastEventId: string | undefined;
    if (this.plan.type === "event" && Array.isArray(data)) {
      const last = data.at(-1);
      lastEventId = isObject(last) ? asString(field(last, "ID")) : undefined;
      data = eventsAfter(data, this.#lastEventId);
    }
    if (this.#lastIndex !== undefined && this.#lastIndex === index) return { run: false };
    const previous = this.#lastIndex;
    this.#lastIndex = index;
    this.#lastEventId = lastEventId;
    const encoded = writeJson(data);
    if (previous !== undefined && encoded === this.#lastResult) return { run: false };
    this.#lastResult = encoded;
    return { run: true, index, data };
  }

  /** After a failed request: the next answer counts as the first (Consul runs the handler again). */
  reset(): void {
    this.#lastIndex = undefined;
    this.#lastEventId = undefined;
  }
}

/** The events after the one with ID `lastId`; all of them when it is not in the list (or not known). */
export function eventsAfter(events: JsonValue[], lastId: string | undefined): JsonValue[] {
  if (lastId === undefined) return events;
  const at = events.findIndex((e) => isObject(e) && asString(field(e, "ID")) === lastId);
  return at === -1 ? events : events.slice(at + 1);
}
