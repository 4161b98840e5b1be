import { eventIndex, UserEventError, type UserEventRequest } from "@cairn/api";
import { Packr } from "msgpackr";
import { describe, expect, it } from "vitest";
import { EVENT_BUFFER_SIZE, EventLog } from "../../src/events/event-log.js";
import type { LocalService } from "../../src/events/filters.js";
import { EVENT_MESSAGE } from "../../src/events/wire.js";

let counter = 0;
const uuid = () => `00000000-0000-4000-8000-${(++counter).toString(16).padStart(12, "0")}`;

function request(name: string, over: Partial<UserEventRequest> = {}): UserEventRequest {
  return { name, payload: null, nodeFilter: "", serviceFilter: "", tagFilter: "", ...over };
}

function log(nodeName: string, services: LocalService[] = []) {
  const sent: unknown[] = [];
  const events = new EventLog({
    nodeName,
    localServices: () => services,
    broadcast: (m) => sent.push(m),
    uuid,
  });
  return { events, sent };
}

describe("EventLog", () => {
  it("records its own event and gossips it with a Lamport time", () => {
    const a = log("a");
    const e1 = a.events.fire(request("deploy", { payload: Buffer.from("v1") }));
    const e2 = a.events.fire(request("deploy"));
    expect(e1).toMatchObject({ Name: "deploy", Version: 1, LTime: 0, Payload: Buffer.from("v1") });
    expect(e2.LTime).toBe(1);
    expect(a.events.events().map((e) => e.ID)).toEqual([e1.ID, e2.ID]);
    expect(a.sent).toHaveLength(2);
    expect(a.sent[0]).toMatchObject({ t: EVENT_MESSAGE, ID: e1.ID, LTime: 0 });
  });

  it("delivers to a peer once, and moves the peer's clock past the sender's", () => {
    const a = log("a");
    const b = log("b");
    for (let i = 0; i < 5; i++) a.events.fire(request("x"));
    for (const m of a.sent) expect(b.events.receive(m)).toBe(true);
    expect(b.events.receive(a.sent[0])).toBe(false);
    expect(b.events.stats.duplicates).toBe(1);
    expect(b.events.events()).toHaveLength(5);
    expect(b.events.lamportTime).toBe(5);
    expect(b.events.fire(request("y")).LTime).toBe(5);
  });

  it("applies node, service and tag filters against the receiving agent", () => {
    const a = log("web-1", [{ Service: "web", Tags: ["blue", "v2"] }]);
    const b = log("db-1", [{ Service: "db", Tags: ["primary"] }]);
    const fire = (over: Partial<UserEventRequest>) => {
      a.events.fire(request("e", over));
      b.events.receive(a.sent.at(-1));
    };
    fire({ nodeFilter: "^web" });
    fire({ nodeFilter: "db" });
    fire({ serviceFilter: "we" });
    fire({ serviceFilter: "db", tagFilter: "^prim" });
    fire({ serviceFilter: "db", tagFilter: "blue" });
    fire({ serviceFilter: "cache" });
    // The filter is matched against instance IDs, as Consul keys local services.
    const c = log("cache-1", [{ ID: "redis-1", Service: "cache", Tags: [] }]);
    c.events.receive(a.sent.at(-1));
    c.events.fire(request("by-id", { serviceFilter: "^redis-" }));
    expect(c.events.events().map((e) => e.ServiceFilter)).toEqual(["^redis-"]);
    const filters = (l: EventLog) =>
      l.events().map((e) => `${e.NodeFilter}|${e.ServiceFilter}|${e.TagFilter}`);
    expect(filters(a.events)).toEqual(["^web||", "|we|"]);
    expect(filters(b.events)).toEqual(["db||", "|db|^prim"]);
    expect(b.events.stats.filtered).toBe(4);
  });

  it("refuses what Consul refuses, before sending anything", () => {
    const a = log("a");
    const refused = (over: Partial<UserEventRequest>, message: RegExp) =>
      expect(() => a.events.fire(request("e", over))).toThrow(message);
    refused({ tagFilter: "x" }, /Cannot provide tag filter without service filter/);
    refused({ nodeFilter: "(" }, /^Invalid node filter: /);
    refused({ serviceFilter: "[" }, /^Invalid service filter: /);
    refused({ serviceFilter: "s", tagFilter: "*" }, /^Invalid tag filter: /);
    refused(
      { payload: Buffer.alloc(500) },
      /user event exceeds configured limit of 512 bytes before encoding/,
    );
    expect(() => a.events.fire(request(""))).toThrow(UserEventError);
    expect(a.sent).toHaveLength(0);
    // A payload of a few hundred bytes fits, as in Consul.
    expect(a.events.fire(request("deploy", { payload: Buffer.alloc(400) })).Payload).toHaveLength(400);
  });

  it("survives the gossip frame encoding (msgpack records) with its payload bytes", () => {
    const packr = new Packr({ useRecords: true, moreTypes: false });
    const a = log("a");
    const b = log("b");
    const fired = a.events.fire(request("deploy", { payload: Buffer.from([0, 1, 2, 255]) }));
    expect(b.events.receive(packr.unpack(packr.pack({ from: "a", packet: [a.sent[0]] })).packet[0])).toBe(
      true,
    );
    expect(b.events.events()).toEqual([{ ...fired, Payload: Buffer.from([0, 1, 2, 255]) }]);
  });

  it("turns a failed broadcast into a refusal, recording nothing", () => {
    const events = new EventLog({
      nodeName: "a",
      localServices: () => [],
      broadcast: () => {
        throw new Error("gossip is not running");
      },
    });
    expect(() => events.fire(request("e"))).toThrow("error broadcasting event: gossip is not running");
    expect(events.events()).toEqual([]);
  });

  it("drops and counts malformed event messages, ignores other user messages", () => {
    const b = log("b");
    const good = {
      t: EVENT_MESSAGE,
      ID: uuid(),
      Name: "n",
      Payload: null,
      NodeFilter: "",
      ServiceFilter: "",
      TagFilter: "",
      Version: 1,
      LTime: 3,
    };
    const bad: unknown[] = [
      { ...good, ID: "not-a-uuid" },
      { ...good, Name: "" },
      { ...good, Name: 7 },
      { ...good, Payload: "text" },
      { ...good, NodeFilter: null },
      { ...good, Version: 0 },
      { ...good, LTime: -1 },
      { ...good, LTime: 1.5 },
      { ...good, Payload: Buffer.alloc(600) },
    ];
    for (const m of bad) expect(b.events.receive(m)).toBe(false);
    expect(b.events.receive({ t: "something-else" })).toBe(false);
    expect(b.events.receive(null)).toBe(false);
    expect(b.events.stats.malformed).toBe(bad.length);
    expect(b.events.receive(good)).toBe(true);
    // A filter another runtime accepted but this one cannot compile: skipped, not malformed.
    expect(b.events.receive({ ...good, ID: uuid(), NodeFilter: "(" })).toBe(false);
    expect(b.events.stats.filtered).toBe(1);
  });

  it("keeps the newest 256 events, oldest first, and never lists remote exec", () => {
    const a = log("a");
    const ids = [];
    for (let i = 0; i < EVENT_BUFFER_SIZE + 10; i++) ids.push(a.events.fire(request(`e${i}`)).ID);
    a.events.fire(request("_rexec"));
    const listed = a.events.events();
    expect(listed).toHaveLength(EVENT_BUFFER_SIZE);
    expect(listed.map((e) => e.ID)).toEqual(ids.slice(10));
  });

  it("wakes every waiter once on the next recorded event", async () => {
    const a = log("a");
    const first = a.events.changed();
    expect(a.events.changed()).toBe(first);
    let woke = false;
    void first.then(() => {
      woke = true;
    });
    a.events.fire(request("e", { nodeFilter: "nobody" }));
    await Promise.resolve();
    expect(woke).toBe(false);
    a.events.fire(request("e"));
    await first;
    expect(woke).toBe(true);
    expect(a.events.changed()).not.toBe(first);
  });
});

describe("eventIndex", () => {
  it("folds the UUID's halves with XOR, as Consul's uuidToUint64", () => {
    expect(eventIndex("00000000-0000-0001-0000-000000000003")).toBe(2n);
    expect(eventIndex("ffffffff-ffff-ffff-0000-000000000000")).toBe((1n << 64n) - 1n);
    expect(() => eventIndex("nope")).toThrow();
  });
});
