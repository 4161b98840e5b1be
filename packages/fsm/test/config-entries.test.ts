import { describe, expect, it } from "vitest";
import { type ApplyResult, StateStore } from "../src/index.js";
import { Harness } from "./helpers.js";

type Entry = Record<string, unknown> & { Kind: string; Name: string };

const set = (h: Harness, entry: Entry, cas?: number, ns?: string): ApplyResult =>
  h.run("config-entry.set", { entry, ...(cas === undefined ? {} : { cas }), ...(ns ? { ns } : {}) });
const del = (h: Harness, kind: string, name: string, cas?: number): ApplyResult =>
  h.run("config-entry.delete", { kind, name, ...(cas === undefined ? {} : { cas }) });
const get = (h: Harness, kind: string, name: string, ns?: string) =>
  h.store.view().configEntry(kind, name, ns).value;

const defaults = (name: string, Protocol: string): Entry => ({
  Kind: "service-defaults",
  Name: name,
  Protocol,
});
const splitter = (name: string, splits: Record<string, unknown>[]): Entry => ({
  Kind: "service-splitter",
  Name: name,
  Splits: splits,
});

describe("config entries: cas (spec 3's state table)", () => {
  it("absent + cas 0 stores; present + cas 0 does not", () => {
    const h = new Harness();
    expect(set(h, defaults("web", "http"), 0)).toBe(true);
    expect(get(h, "service-defaults", "web")).toMatchObject({
      CreateIndex: 1,
      ModifyIndex: 1,
      Protocol: "http",
    });
    expect(set(h, defaults("web", "grpc"), 0)).toBe(false);
    expect(get(h, "service-defaults", "web")?.Protocol).toBe("http");
  });

  it("present + cas equal to ModifyIndex updates, keeping CreateIndex; a different cas does not", () => {
    const h = new Harness();
    set(h, defaults("web", "http"));
    expect(set(h, defaults("web", "grpc"), 99)).toBe(false);
    expect(set(h, defaults("web", "grpc"), 1)).toBe(true);
    expect(get(h, "service-defaults", "web")).toMatchObject({
      Protocol: "grpc",
      CreateIndex: 1,
      ModifyIndex: 3,
    });
  });

  it("absent + non-zero cas does not store; no cas always stores", () => {
    const h = new Harness();
    expect(set(h, defaults("web", "http"), 5)).toBe(false);
    expect(get(h, "service-defaults", "web")).toBeUndefined();
    expect(set(h, defaults("web", "http"))).toBe(true);
    expect(set(h, defaults("web", "tcp"))).toBe(true);
    expect(get(h, "service-defaults", "web")?.ModifyIndex).toBe(3);
  });

  it("delete: plain delete is idempotent; with cas only at the ModifyIndex", () => {
    const h = new Harness();
    set(h, defaults("web", "http"));
    expect(del(h, "service-defaults", "web", 7)).toBe(false);
    expect(get(h, "service-defaults", "web")).toBeDefined();
    expect(del(h, "service-defaults", "web", 1)).toBe(true);
    expect(get(h, "service-defaults", "web")).toBeUndefined();
    expect(del(h, "service-defaults", "web")).toBe(true);
    expect(del(h, "service-defaults", "web", 1)).toBe(false);
  });

  it("keys by kind, namespace and name; lists by kind in name order", () => {
    const h = new Harness().namespaces("team");
    set(h, defaults("b", "http"));
    set(h, defaults("a", "http"));
    set(h, defaults("a", "tcp"), undefined, "team");
    set(h, { Kind: "service-resolver", Name: "a" });
    const view = h.store.view();
    expect(view.configEntries("service-defaults").value.map((e) => e.Name)).toEqual(["a", "b"]);
    expect(view.configEntries("service-defaults", "team").value.map((e) => e.Namespace)).toEqual(["team"]);
    expect(view.configEntries("service-defaults", "*").value).toHaveLength(3);
    expect(view.configEntries("service-defaults").index).toBe(5);
    expect(view.configEntry("service-defaults", "a", "team").value?.Protocol).toBe("tcp");
  });
});

describe("config entries: cross-entry validation", () => {
  it("a splitter needs an L7 protocol from service-defaults or proxy-defaults", () => {
    const h = new Harness();
    const s = splitter("web", [{ Weight: 100 }]);
    expect(set(h, s)).toEqual({
      error:
        'discovery chain "web" uses a protocol "tcp" that does not permit advanced routing or splitting behavior',
      kind: "invalid",
    });
    expect(get(h, "service-splitter", "web")).toBeUndefined();
    set(h, { Kind: "proxy-defaults", Name: "global", Config: { protocol: "http" } });
    expect(set(h, s)).toBe(true);
    // Removing the protocol the splitter depends on is refused too.
    expect(set(h, { Kind: "proxy-defaults", Name: "global", Config: {} })).toMatchObject({ kind: "invalid" });
    set(h, defaults("web", "grpc"));
    expect(set(h, { Kind: "proxy-defaults", Name: "global", Config: {} })).toBe(true);
    expect(del(h, "service-defaults", "web")).toMatchObject({ error: expect.stringContaining('"tcp"') });
  });

  it("a router needs an L7 protocol", () => {
    const h = new Harness();
    set(h, defaults("web", "tcp"));
    const router = {
      Kind: "service-router",
      Name: "web",
      Routes: [{ Match: { HTTP: { PathPrefix: "/" } } }],
    };
    expect(set(h, router)).toMatchObject({
      error: expect.stringContaining("advanced routing"),
      kind: "invalid",
    });
    set(h, defaults("web", "http2"));
    expect(set(h, router)).toBe(true);
  });

  it("subsets a splitter, router or redirect reaches must exist in the resolver", () => {
    const h = new Harness();
    set(h, defaults("web", "http"));
    const s = splitter("web", [
      { Weight: 50, ServiceSubset: "v1" },
      { Weight: 50, ServiceSubset: "v2" },
    ]);
    expect(set(h, s)).toEqual({ error: 'service "web" does not have a subset named "v1"', kind: "invalid" });
    set(h, { Kind: "service-resolver", Name: "web", Subsets: { v1: {}, v2: {} } });
    expect(set(h, s)).toBe(true);
    // The resolver may not drop a subset the splitter uses.
    expect(set(h, { Kind: "service-resolver", Name: "web", Subsets: { v1: {} } })).toMatchObject({
      error: 'service "web" does not have a subset named "v2"',
    });
    expect(
      set(h, { Kind: "service-resolver", Name: "api", Redirect: { Service: "web", ServiceSubset: "v3" } }),
    ).toMatchObject({ error: 'service "web" does not have a subset named "v3"' });
    expect(
      set(h, {
        Kind: "service-resolver",
        Name: "api",
        Failover: { "*": { Service: "web", ServiceSubset: "v9" } },
      }),
    ).toMatchObject({ error: 'service "web" does not have a subset named "v9"' });
    expect(
      set(h, { Kind: "service-resolver", Name: "api", Redirect: { Service: "web", ServiceSubset: "v2" } }),
    ).toBe(true);
  });

  it("refuses circular redirects and circular splits", () => {
    const h = new Harness();
    set(h, { Kind: "proxy-defaults", Name: "global", Config: { protocol: "http" } });
    set(h, { Kind: "service-resolver", Name: "other", Redirect: { Service: "main" } });
    expect(set(h, { Kind: "service-resolver", Name: "main", Redirect: { Service: "other" } })).toMatchObject({
      error: expect.stringMatching(/^detected circular resolver redirect: \[/),
    });
    set(h, splitter("other", [{ Weight: 100, Service: "main" }]));
    expect(set(h, splitter("main", [{ Weight: 100, Service: "other" }]))).toMatchObject({
      error: expect.stringMatching(/^detected circular reference: \[splitter:main/),
    });
    // A diamond is not a loop.
    set(h, splitter("left", [{ Weight: 100, Service: "leaf" }]));
    set(h, splitter("right", [{ Weight: 100, Service: "leaf" }]));
    expect(
      set(
        h,
        splitter("top", [
          { Weight: 50, Service: "left" },
          { Weight: 50, Service: "right" },
        ]),
      ),
    ).toBe(true);
  });

  it("an ingress listener's services must speak its protocol, also after a defaults change", () => {
    const h = new Harness();
    const gateway = {
      Kind: "ingress-gateway",
      Name: "edge",
      Listeners: [{ Port: 80, Protocol: "http", Services: [{ Name: "web" }, { Name: "*" }] }],
    };
    expect(set(h, gateway)).toEqual({
      error: 'service "web" has protocol "tcp", which does not match defined listener protocol "http"',
      kind: "invalid",
    });
    set(h, defaults("web", "http"));
    expect(set(h, gateway)).toBe(true);
    expect(set(h, defaults("web", "grpc"))).toMatchObject({
      error: expect.stringContaining('protocol "grpc"'),
    });
    expect(del(h, "service-defaults", "web")).toMatchObject({ kind: "invalid" });
    expect(set(h, { Kind: "proxy-defaults", Name: "global", Config: { protocol: "http" } })).toBe(true);
    expect(del(h, "service-defaults", "web")).toBe(true);
  });

  it("an ingress and a terminating gateway may not share a name", () => {
    const h = new Harness();
    expect(set(h, { Kind: "ingress-gateway", Name: "gw" })).toBe(true);
    expect(set(h, { Kind: "terminating-gateway", Name: "gw" })).toMatchObject({
      error:
        'cannot create a "terminating-gateway" config entry with name "gw", a "ingress-gateway" config entry with that name already exists',
    });
  });

  it("a refused change moves no index and wakes nobody", async () => {
    const h = new Harness();
    set(h, defaults("web", "tcp"));
    const before = h.store.view().configEntries("service-splitter");
    const woke = h.store.watches.wait(before.watch, AbortSignal.timeout(50));
    set(h, splitter("web", [{ Weight: 100 }]));
    expect(await woke).toBe("timeout");
    expect(h.store.view().configEntries("service-splitter").index).toBe(1);
  });
});

describe("config entries: watches and snapshots", () => {
  it("a kind's list wakes on that kind only; an entry's read on that entry only", async () => {
    const h = new Harness();
    set(h, defaults("web", "http"));
    const view = h.store.view();
    const kindWait = h.store.watches.wait(
      view.configEntries("service-defaults").watch,
      AbortSignal.timeout(500),
    );
    const otherKind = h.store.watches.wait(
      view.configEntries("service-resolver").watch,
      AbortSignal.timeout(50),
    );
    const entryWait = h.store.watches.wait(
      view.configEntry("service-defaults", "web").watch,
      AbortSignal.timeout(50),
    );
    set(h, defaults("api", "http"));
    expect(await kindWait).toBe("changed");
    expect(await otherKind).toBe("timeout");
    expect(await entryWait).toBe("timeout");
    const again = h.store.watches.wait(
      h.store.view().configEntry("service-defaults", "web").watch,
      AbortSignal.timeout(500),
    );
    del(h, "service-defaults", "web");
    expect(await again).toBe("changed");
  });

  it("snapshot and restore carry the table and its index", async () => {
    const h = new Harness();
    set(h, defaults("web", "http"));
    set(h, { Kind: "proxy-defaults", Name: "global", Config: { protocol: "http", nested: { a: [1, 2] } } });
    const copy = new StateStore();
    await copy.restore([h.snapshotBytes()]);
    expect(copy.view().configEntry("proxy-defaults", "global").value).toEqual(
      h.store.view().configEntry("proxy-defaults", "global").value,
    );
    // One index for the whole table, as Consul reports it.
    expect(copy.view().configEntries("service-defaults").index).toBe(2);
    expect(copy.view().configEntry("service-defaults", "web").value?.ModifyIndex).toBe(1);
  });

  it("after a restore, changes are still checked against the entries that reach them", async () => {
    const h = new Harness();
    set(h, { Kind: "proxy-defaults", Name: "global", Config: { protocol: "http" } });
    set(h, { Kind: "service-resolver", Name: "api", Subsets: { v1: {} } });
    set(h, splitter("web", [{ Weight: 100, Service: "api", ServiceSubset: "v1" }]));
    const copy = new StateStore();
    await copy.restore([h.snapshotBytes()]);
    const drop = {
      v: 1,
      type: "config-entry.set",
      entry: { Kind: "service-resolver", Name: "api" },
    } as const;
    expect(copy.applyCommand(10, drop)).toEqual({
      error: 'service "api" does not have a subset named "v1"',
      kind: "invalid",
    });
  });

  it("set and delete commands survive the codec unchanged", () => {
    const h = new Harness().namespaces("team");
    set(
      h,
      { Kind: "service-resolver", Name: "web", Subsets: { v1: { Filter: "x", OnlyPassing: true } } },
      0,
      "team",
    );
    expect(h.run("config-entry.delete", { kind: "service-resolver", name: "web", cas: 2, ns: "team" })).toBe(
      true,
    );
    const replay = new StateStore();
    for (const [i, data] of h.log.entries()) replay.apply(i + 1, data);
    expect(replay.view().configEntries("service-resolver", "*").value).toEqual([]);
    expect(replay.view().configEntries("service-resolver").index).toBe(3);
  });

  it("refuses a set command without Kind or Name at decode", () => {
    const h = new Harness();
    expect(() => h.run("config-entry.set", { entry: { Kind: "service-defaults" } })).toThrow(/Name/);
  });
});
