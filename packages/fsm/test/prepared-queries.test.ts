import { describe, expect, it } from "vitest";
import {
  type ApplyResult,
  type Command,
  CommandDecodeError,
  decodeCommand,
  encodeCommand,
  type PreparedQuerySpec,
  StateStore,
} from "../src/index.js";
import { Harness } from "./helpers.js";

const ID1 = "11111111-1111-1111-1111-111111111111";
const ID2 = "22222222-2222-2222-2222-222222222222";
const ID3 = "33333333-3333-3333-3333-333333333333";
const SESSION = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa";

const spec = (over: Partial<PreparedQuerySpec> & { ID: string }): PreparedQuerySpec => ({
  Name: "",
  Session: "",
  Token: "",
  Template: { Type: "", Regexp: "", RemoveEmptyTags: false },
  Service: { Service: "redis" },
  DNS: { TTL: "" },
  ...over,
});
const template = (ID: string, Name: string): PreparedQuerySpec =>
  spec({ ID, Name, Template: { Type: "name_prefix_match", Regexp: "", RemoveEmptyTags: false } });

const create = (h: Harness, q: PreparedQuerySpec): ApplyResult =>
  h.run("prepared-query.set", { op: "create", query: q });
const update = (h: Harness, q: PreparedQuerySpec): ApplyResult =>
  h.run("prepared-query.set", { op: "update", query: q });
const resolve = (h: Harness, name: string) => {
  const r = h.store.view().preparedQueryResolve(name).value;
  return typeof r === "object" ? r.ID : r;
};

describe("prepared queries: create, update, delete", () => {
  it("stores with Raft indexes; update keeps CreateIndex; delete removes", () => {
    const h = new Harness();
    expect(create(h, spec({ ID: ID1, Name: "q" }))).toBe(true);
    expect(h.store.view().preparedQuery(ID1).value).toMatchObject({
      Name: "q",
      CreateIndex: 1,
      ModifyIndex: 1,
    });
    expect(update(h, spec({ ID: ID1, Name: "q2" }))).toBe(true);
    const read = h.store.view().preparedQuery(ID1);
    expect(read.value).toMatchObject({ Name: "q2", CreateIndex: 1, ModifyIndex: 2 });
    expect(read.index).toBe(2);
    // The old name no longer resolves; the new one does.
    expect(resolve(h, "q")).toBeUndefined();
    expect(resolve(h, "q2")).toBe(ID1);
    expect(h.run("prepared-query.delete", { id: ID1 })).toBe(true);
    expect(h.store.view().preparedQueries().value).toEqual([]);
    expect(h.store.view().preparedQueries().index).toBe(3);
  });

  it("update or delete of an unknown ID is refused with Consul's message", () => {
    const h = new Harness();
    expect(update(h, spec({ ID: ID1 }))).toEqual({
      error: `Cannot modify non-existent prepared query: '${ID1}'`,
      kind: "not-found",
    });
    expect(h.run("prepared-query.delete", { id: ID1 })).toMatchObject({ kind: "not-found" });
  });

  it("names are unique case-insensitively; a name may not alias another query's ID", () => {
    const h = new Harness();
    create(h, spec({ ID: ID1, Name: "Redis" }));
    expect(create(h, spec({ ID: ID2, Name: "redis" }))).toEqual({
      error: "name 'redis' aliases an existing query name",
      kind: "invalid",
    });
    expect(create(h, spec({ ID: ID2, Name: ID1 }))).toEqual({
      error: `name '${ID1}' aliases an existing query ID`,
      kind: "invalid",
    });
    // Renaming itself is fine.
    expect(update(h, spec({ ID: ID1, Name: "REDIS" }))).toBe(true);
  });

  it("only one catch-all template", () => {
    const h = new Harness();
    expect(create(h, template(ID1, ""))).toBe(true);
    expect(create(h, template(ID2, ""))).toEqual({
      error: "a query template with an empty name already exists",
      kind: "invalid",
    });
    expect(update(h, template(ID1, ""))).toBe(true);
  });

  it("an unknown session is refused", () => {
    const h = new Harness();
    expect(create(h, spec({ ID: ID1, Session: SESSION }))).toEqual({
      error: `invalid session "${SESSION}"`,
      kind: "invalid",
    });
  });
});

describe("prepared queries: resolution", () => {
  const h = new Harness();
  create(h, spec({ ID: ID1, Name: "geo-db-static" }));
  create(h, template(ID2, "geo-db"));
  create(h, template(ID3, ""));
  create(h, template("44444444-4444-4444-4444-444444444444", "geo"));

  it("ID first, then exact name, then longest template prefix, catch-all last", () => {
    expect(resolve(h, ID1)).toBe(ID1);
    expect(resolve(h, "geo-db-static")).toBe(ID1);
    expect(resolve(h, "GEO-DB-STATIC")).toBe(ID1);
    expect(resolve(h, "geo-db-customer-primary")).toBe(ID2);
    expect(resolve(h, "geo-db")).toBe(ID2);
    expect(resolve(h, "geo-x")).toBe("44444444-4444-4444-4444-444444444444");
    expect(resolve(h, "anything")).toBe(ID3);
    expect(resolve(h, "")).toBeUndefined();
  });

  it("a template is reached by name only", () => {
    expect(resolve(h, ID2)).toBe("template-by-id");
  });

  it("a static name that is a prefix does not act as a template", () => {
    const h2 = new Harness();
    create(h2, spec({ ID: ID1, Name: "web" }));
    expect(resolve(h2, "web-1")).toBeUndefined();
  });
});

describe("prepared queries: session binding and snapshots", () => {
  it("a query bound to a session goes when the session is destroyed or its node deregistered", () => {
    const h = new Harness();
    h.registerNode("n1");
    h.createSession({ ID: SESSION });
    expect(create(h, spec({ ID: ID1, Name: "bound", Session: SESSION }))).toBe(true);
    create(h, spec({ ID: ID2, Name: "free" }));
    h.destroySession(SESSION);
    expect(h.store.view().preparedQuery(ID1).value).toBeUndefined();
    expect(h.store.view().preparedQuery(ID2).value).toBeDefined();
    expect(resolve(h, "bound")).toBeUndefined();

    h.createSession({ ID: SESSION });
    create(h, spec({ ID: ID3, Session: SESSION }));
    h.run("catalog.deregister", { node: "n1", now: h.now });
    expect(h.store.view().preparedQuery(ID3).value).toBeUndefined();
  });

  it("a snapshot restores queries and their indexes", () => {
    const h = new Harness();
    h.registerNode("n1");
    h.createSession({ ID: SESSION });
    create(h, spec({ ID: ID1, Name: "bound", Session: SESSION }));
    create(h, template(ID2, "tmpl"));
    const restored = new StateStore();
    restored.restoreSync([h.snapshotBytes()]);
    const view = restored.view();
    expect(view.preparedQueries().value.map((q) => q.ID)).toEqual([ID1, ID2]);
    expect(view.preparedQueries().index).toBe(4);
    const found = view.preparedQueryResolve("tmpl-x").value;
    expect(typeof found === "object" && found.ID).toBe(ID2);
    // The derived session index came back too.
    let index = restored.index;
    restored.applyCommand(++index, { v: 1, type: "session.destroy", id: SESSION, now: 0 });
    expect(restored.view().preparedQuery(ID1).value).toBeUndefined();
  });
});

describe("prepared queries: commands", () => {
  it("round-trip through the codec", () => {
    const commands: Command[] = [
      { v: 1, type: "prepared-query.set", op: "update", query: template(ID1, "t") },
      { v: 1, type: "prepared-query.delete", id: ID2 },
    ];
    for (const c of commands) expect(decodeCommand(encodeCommand(c))).toEqual(c);
  });

  it("an unknown op is refused at decode", () => {
    const bad = {
      v: 1,
      type: "prepared-query.set",
      op: "upsert",
      query: spec({ ID: ID1 }),
    } as unknown as Command;
    expect(() => decodeCommand(encodeCommand(bad))).toThrow(CommandDecodeError);
  });
});
