// The npm `consul` client (v2), unmodified, against Cairn: what a Node.js application using Consul does
// must work the same against Cairn.

import Consul from "consul";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../../scripts/lib/wait.js";
import { startTarget, type Target } from "./target.js";

let target: Target;
let consul: Consul;

beforeAll(async () => {
  target = await startTarget();
  consul = new Consul({ host: target.host, port: target.port });
}, 60_000);

afterAll(async () => {
  consul?.destroy();
  await target?.close();
});

interface KvItem {
  Key: string;
  Value: string | null;
  Flags: number;
  CreateIndex: number;
  ModifyIndex: number;
  LockIndex: number;
  Session?: string;
}

const b64 = (s: string) => Buffer.from(s).toString("base64");

// Cairn answers a refused cas/acquire/release with the JSON body `false`, as Consul does; papi (the
// client's HTTP layer) resolves a falsy body as undefined, so refusals are asserted as falsy.

async function getItem(key: string): Promise<KvItem | undefined> {
  return (await consul.kv.get(key)) as KvItem | undefined;
}

/** kv.get with options the client supports at run time but its typings omit (stale, consistent, index, wait). */
async function getWith(options: Record<string, unknown>): Promise<KvItem | undefined> {
  return (await consul.kv.get(options as never)) as KvItem | undefined;
}

describe("consul client: KV", () => {
  it("sets, gets and deletes a key", async () => {
    expect(await consul.kv.set("compat/kv/a", "one")).toBe(true);
    const item = await getItem("compat/kv/a");
    expect(item).toMatchObject({ Key: "compat/kv/a", Value: "one", Flags: 0, LockIndex: 0 });
    expect(item?.ModifyIndex).toBeGreaterThan(0);
    expect(await consul.kv.del("compat/kv/a")).toBe(true);
    expect(await getItem("compat/kv/a")).toBeUndefined();
  });

  it("stores flags", async () => {
    expect(await consul.kv.set({ key: "compat/kv/flags", value: "f", flags: 42 })).toBe(true);
    expect((await getItem("compat/kv/flags"))?.Flags).toBe(42);
  });

  it("check-and-set: cas=0 creates only, a stale index is refused, the current one wins", async () => {
    expect(await consul.kv.set({ key: "compat/kv/cas", value: "v1", cas: 0 })).toBe(true);
    expect(await consul.kv.set({ key: "compat/kv/cas", value: "again", cas: 0 })).toBeFalsy();
    const item = await getItem("compat/kv/cas");
    const index = item?.ModifyIndex ?? 0;
    expect(await consul.kv.set({ key: "compat/kv/cas", value: "stale", cas: index - 1 })).toBeFalsy();
    expect(await consul.kv.set({ key: "compat/kv/cas", value: "v2", cas: index })).toBe(true);
    expect((await getItem("compat/kv/cas"))?.Value).toBe("v2");

    const current = (await getItem("compat/kv/cas"))?.ModifyIndex ?? 0;
    expect(await consul.kv.del({ key: "compat/kv/cas", cas: current - 1 })).toBeFalsy();
    expect(await consul.kv.del({ key: "compat/kv/cas", cas: current })).toBe(true);
    expect(await getItem("compat/kv/cas")).toBeUndefined();
  });

  it("recurse, keys with a separator, recursive delete", async () => {
    for (const k of ["compat/tree/a", "compat/tree/b/c", "compat/tree/b/d"]) {
      expect(await consul.kv.set(k, `v-${k}`)).toBe(true);
    }
    const all = (await consul.kv.get({ key: "compat/tree/", recurse: true })) as KvItem[];
    expect(all.map((i) => i.Key)).toEqual(["compat/tree/a", "compat/tree/b/c", "compat/tree/b/d"]);
    expect(all[1]?.Value).toBe("v-compat/tree/b/c");

    expect(await consul.kv.keys("compat/tree/")).toEqual([
      "compat/tree/a",
      "compat/tree/b/c",
      "compat/tree/b/d",
    ]);
    expect(await consul.kv.keys({ key: "compat/tree/", separator: "/" })).toEqual([
      "compat/tree/a",
      "compat/tree/b/",
    ]);

    expect(await consul.kv.del({ key: "compat/tree/", recurse: true })).toBe(true);
    expect(await consul.kv.get({ key: "compat/tree/", recurse: true })).toBeUndefined();
  });

  it("raw get returns the stored bytes", async () => {
    await consul.kv.set("compat/kv/raw", Buffer.from([0xde, 0xad, 0xbe, 0xef]));
    const raw = (await consul.kv.get({ key: "compat/kv/raw", raw: true })) as unknown as Buffer;
    expect(Buffer.from(raw)).toEqual(Buffer.from([0xde, 0xad, 0xbe, 0xef]));
  });
});

describe("consul client: session lock", () => {
  it("one session holds the lock, the other cannot take it until it is released", async () => {
    const s1 = (await consul.session.create({ name: "compat-one", lockdelay: "1s" })).ID;
    const s2 = (await consul.session.create({ name: "compat-two", ttl: "30s" })).ID;
    expect(s1).toMatch(/^[0-9a-f-]{36}$/);
    expect(s1).not.toBe(s2);

    const info = await consul.session.info(s1);
    expect(info).toMatchObject({ ID: s1, Name: "compat-one", Behavior: "release" });
    expect(info.LockDelay).toBe(1_000_000_000);
    expect((await consul.session.info(s2)).TTL).toBe("30s");

    expect(await consul.kv.set({ key: "compat/lock", value: "held-by-1", acquire: s1 })).toBe(true);
    expect(await consul.kv.set({ key: "compat/lock", value: "by-2", acquire: s2 })).toBeFalsy();
    const held = await getItem("compat/lock");
    expect(held).toMatchObject({ Value: "held-by-1", Session: s1, LockIndex: 1 });

    // Releasing with the wrong session is refused; with the holder it succeeds and the lock is free.
    expect(await consul.kv.set({ key: "compat/lock", value: "x", release: s2 })).toBeFalsy();
    expect(await consul.kv.set({ key: "compat/lock", value: "released", release: s1 })).toBe(true);
    const free = await getItem("compat/lock");
    expect(free?.Session).toBeUndefined();
    expect(free?.Value).toBe("released");

    expect(await consul.kv.set({ key: "compat/lock", value: "held-by-2", acquire: s2 })).toBe(true);
    expect((await getItem("compat/lock"))?.LockIndex).toBe(2);

    const listed = (await consul.session.list()) as Array<{ ID: string }>;
    expect(listed.map((s) => s.ID)).toEqual(expect.arrayContaining([s1, s2]));

    // Destroying the holder releases its lock (Behavior release keeps the key).
    await consul.session.destroy(s2);
    await consul.session.destroy(s1);
    const after = await getItem("compat/lock");
    expect(after?.Session).toBeUndefined();
    expect(after?.Value).toBe("held-by-2");
    expect(await consul.session.info(s1)).toBeUndefined();
  });
});

describe("consul client: transaction", () => {
  it("applies KV operations atomically and returns their results", async () => {
    const result = await consul.transaction.create([
      { KV: { Verb: "set", Key: "compat/txn/a", Value: b64("alpha"), Flags: 7 } },
      { KV: { Verb: "set", Key: "compat/txn/b", Value: b64("beta") } },
      { KV: { Verb: "get", Key: "compat/txn/a" } },
    ] as never);
    const results = result.Results as Array<{ KV: KvItem }>;
    expect(results).toHaveLength(3);
    expect(results[2]?.KV).toMatchObject({ Key: "compat/txn/a", Value: b64("alpha"), Flags: 7 });
    expect(result.Errors ?? null).toBeNull();
    expect((await getItem("compat/txn/b"))?.Value).toBe("beta");
  });

  it("a failed check rolls back the whole transaction and rejects with 409 and its Errors", async () => {
    const failed = consul.transaction.create([
      { KV: { Verb: "set", Key: "compat/txn/c", Value: b64("never") } },
      { KV: { Verb: "check-not-exists", Key: "compat/txn/a" } },
    ] as never);
    const err = (await failed.then(
      () => undefined,
      (e: unknown) => e,
    )) as { response?: { statusCode: number; body: { Errors: Array<{ OpIndex: number; What: string }> } } };
    expect(err?.response?.statusCode).toBe(409);
    expect(err.response?.body.Errors[0]?.OpIndex).toBe(1);
    expect(await getItem("compat/txn/c")).toBeUndefined();
  });
});

describe("consul client: blocking queries", () => {
  it("kv.get with an index blocks until the key changes", async () => {
    await consul.kv.set("compat/block", "before");
    const index = String((await getItem("compat/block"))?.ModifyIndex);

    const started = performance.now();
    const blocked = getWith({ key: "compat/block", index, wait: "10s" });
    const early = await Promise.race([
      blocked,
      new Promise((r) => setTimeout(() => r("still blocked"), 300)),
    ]);
    expect(early).toBe("still blocked");
    await consul.kv.set("compat/block", "after");
    const woke = await blocked;
    expect(woke?.Value).toBe("after");
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("consul.watch emits the current value, then each change", async () => {
    await consul.kv.set("compat/watch", "v0");
    const watch = consul.watch({ method: consul.kv.get, options: { key: "compat/watch", wait: "5s" } });
    const seen: string[] = [];
    const errors: unknown[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        watch.on("error", (err: unknown) => errors.push(err));
        watch.on("change", (data: KvItem | undefined) => {
          seen.push(data?.Value ?? "<deleted>");
          if (seen.length === 1) consul.kv.set("compat/watch", "v1").catch(reject);
          else if (seen.length === 2) consul.kv.del("compat/watch").catch(reject);
          else resolve();
        });
        setTimeout(() => reject(new Error(`watch saw ${JSON.stringify(seen)}, errors ${errors}`)), 10_000);
      });
    } finally {
      watch.end();
    }
    expect(seen).toEqual(["v0", "v1", "<deleted>"]);
    expect(errors).toEqual([]);
  });
});

describe("consul client: consistency modes, status and session renewal", () => {
  it("reads in stale and consistent mode", async () => {
    await consul.kv.set("compat/modes", "m");
    expect((await getWith({ key: "compat/modes", stale: true }))?.Value).toBe("m");
    expect((await getWith({ key: "compat/modes", consistent: true }))?.Value).toBe("m");
  });

  it("reports the leader and peers", async () => {
    const leader = await consul.status.leader();
    expect(leader).toMatch(/^[\d.]+:\d+$/);
    expect(await consul.status.peers()).toContain(leader);
  });

  it("renews a TTL session and lists the node's sessions", async () => {
    const { ID } = await consul.session.create({ name: "compat-renew", ttl: "15s" });
    const renewed = (await consul.session.renew(ID)) as Array<{ ID: string; TTL: string }>;
    expect(renewed[0]).toMatchObject({ ID, TTL: "15s" });
    const node = (await consul.session.info(ID)).Node;
    const onNode = (await consul.session.node(node)) as Array<{ ID: string }>;
    expect(onNode.map((s) => s.ID)).toContain(ID);
    await consul.session.destroy(ID);
  });
});

describe("consul client: more of what applications do", () => {
  it("a session with Behavior delete removes its locked key when destroyed", async () => {
    const { ID } = await consul.session.create({ name: "compat-ephemeral", behavior: "delete" });
    expect(await consul.kv.set({ key: "compat/ephemeral", value: "e", acquire: ID })).toBe(true);
    await consul.session.destroy(ID);
    expect(await getItem("compat/ephemeral")).toBeUndefined();
  });

  it("takes and releases a lock inside a transaction", async () => {
    const { ID } = await consul.session.create({ name: "compat-txn-lock" });
    const locked = await consul.transaction.create([
      { KV: { Verb: "lock", Key: "compat/txn-lock", Value: b64("mine"), Session: ID } },
    ] as never);
    expect((locked.Results as Array<{ KV: KvItem }>)[0]?.KV).toMatchObject({ LockIndex: 1, Session: ID });
    await consul.transaction.create([
      { KV: { Verb: "unlock", Key: "compat/txn-lock", Value: b64("free"), Session: ID } },
    ] as never);
    expect((await getItem("compat/txn-lock"))?.Session).toBeUndefined();
    await consul.session.destroy(ID);
  });

  it("a blocking get whose key does not change returns at wait with the same index", async () => {
    await consul.kv.set("compat/idle", "i");
    const index = (await getItem("compat/idle"))?.ModifyIndex;
    const started = performance.now();
    const item = await getWith({ key: "compat/idle", index: String(index), wait: "1s" });
    const elapsed = performance.now() - started;
    expect(item?.ModifyIndex).toBe(index);
    // wait plus Consul's jitter of up to wait/16
    expect(elapsed).toBeGreaterThan(900);
    expect(elapsed).toBeLessThan(3000);
  });

  it("consul.watch on kv.keys wakes when a key appears under the prefix", async () => {
    await consul.kv.set("compat/wk/a", "1");
    const watch = consul.watch({ method: consul.kv.keys, options: { key: "compat/wk/", wait: "5s" } });
    const seen: string[][] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        watch.on("error", reject);
        watch.on("change", (keys: string[]) => {
          seen.push(keys);
          if (seen.length === 1) consul.kv.set("compat/wk/b", "2").catch(reject);
          else resolve();
        });
        setTimeout(() => reject(new Error(`keys watch saw ${JSON.stringify(seen)}`)), 10_000);
      });
    } finally {
      watch.end();
    }
    expect(seen).toEqual([["compat/wk/a"], ["compat/wk/a", "compat/wk/b"]]);
  });

  it("renewing an unknown session is a 404 error", async () => {
    const err = (await consul.session.renew("00000000-0000-0000-0000-000000000000").then(
      () => undefined,
      (e: unknown) => e,
    )) as { statusCode?: number } | undefined;
    expect(err?.statusCode).toBe(404);
  });
});

interface SessionRecord {
  ID: string;
  Node: string;
  NodeChecks: string[] | null;
  ServiceChecks: Array<{ ID: string; Namespace: string }> | null;
  Checks?: string[];
}

type TxnRejection = {
  response?: {
    statusCode: number;
    body: { Results: unknown; Errors: Array<{ OpIndex: number; What: string }> };
  };
};

/**
 * The client's session.create forwards only `Checks` (its typings list nodechecks and servicechecks, its
 * code drops them), so Consul 1.7+ bodies go through the client's own request layer, as an application
 * would have to.
 */
async function createSession(body: Record<string, unknown>): Promise<string> {
  const client = consul as unknown as {
    _put(req: Record<string, unknown>, next: unknown): Promise<{ ID: string }>;
  };
  // papi middleware, as the client's own `utils.body`: hand on the error or the decoded body.
  const next = (
    request: { err?: unknown; res: { body: unknown } },
    done: (stop: boolean, err?: unknown, value?: unknown) => void,
  ) => (request.err ? done(false, request.err) : done(false, undefined, request.res.body));
  return (await client._put({ name: "session.create", path: "/session/create", type: "json", body }, next))
    .ID;
}

const sessionInfo = async (id: string) => (await consul.session.info(id)) as SessionRecord | undefined;

/** Agent-registered checks reach the catalog through anti-entropy: wait until sessions can name them. */
async function inCatalog(checkId: string, status = "passing"): Promise<void> {
  await waitFor(`${checkId} ${status} in the catalog`, async () => {
    const checks = (await consul.health.node("compat-node")) as Array<{ CheckID: string; Status: string }>;
    return checks.some((c) => c.CheckID === checkId && c.Status === status) ? true : undefined;
  });
}

describe("consul client: sessions with node and service checks (Consul 1.7+)", () => {
  it("a default session names serfHealth as a node check; an empty Checks list means none", async () => {
    const plain = (await consul.session.create({ name: "compat-default" })).ID;
    expect(await sessionInfo(plain)).toMatchObject({ NodeChecks: ["serfHealth"], ServiceChecks: null });
    const none = (await consul.session.create({ name: "compat-none", checks: [] })).ID;
    expect(await sessionInfo(none)).toMatchObject({ NodeChecks: [], ServiceChecks: null });
    const noNodeChecks = await createSession({ Name: "compat-none-2", NodeChecks: [] });
    expect((await sessionInfo(noNodeChecks))?.NodeChecks).toEqual([]);
    await consul.session.destroy(plain);
    await consul.session.destroy(none);
    await consul.session.destroy(noNodeChecks);
  });

  it("a session on a service check is invalidated when that check fails, releasing its lock", async () => {
    await consul.agent.service.register({
      name: "compat-web",
      id: "compat-web-1",
      port: 8080,
      check: { ttl: "120s", status: "passing" } as never,
    });
    await inCatalog("service:compat-web-1");
    const id = await createSession({
      Name: "compat-web-session",
      NodeChecks: ["serfHealth"],
      ServiceChecks: [{ ID: "service:compat-web-1" }],
    });
    expect(await sessionInfo(id)).toMatchObject({
      NodeChecks: ["serfHealth"],
      ServiceChecks: [{ ID: "service:compat-web-1" }],
    });
    expect(await consul.kv.set({ key: "compat/svc-lock", value: "mine", acquire: id })).toBe(true);

    await consul.agent.check.fail({ id: "service:compat-web-1" } as never);
    await waitFor("the session to be invalidated", async () =>
      (await sessionInfo(id)) === undefined ? true : undefined,
    );
    expect((await getItem("compat/svc-lock"))?.Session).toBeUndefined();
    await consul.agent.service.deregister("compat-web-1");
  });

  it("a session on a node check is invalidated when the check is removed", async () => {
    await consul.agent.check.register({
      name: "compat-disk",
      id: "compat-disk",
      ttl: "120s",
      status: "passing",
    } as never);
    await inCatalog("compat-disk");
    const id = await createSession({ Name: "compat-disk-session", NodeChecks: ["compat-disk"] });
    expect((await sessionInfo(id))?.NodeChecks).toEqual(["compat-disk"]);
    await consul.agent.check.deregister("compat-disk");
    await waitFor("the session to be invalidated", async () =>
      (await sessionInfo(id)) === undefined ? true : undefined,
    );
  });

  it("naming a check that does not exist is refused", async () => {
    const err = (await createSession({ ServiceChecks: [{ ID: "no-such-check" }] }).then(
      () => undefined,
      (e: unknown) => e,
    )) as { statusCode?: number; message?: string } | undefined;
    expect(err?.statusCode).toBe(400);
  });
});

describe("consul client: transactions with per-operation errors", () => {
  it("rejects with 409 and Errors by OpIndex for every bad operation, applying none", async () => {
    const failed = consul.transaction.create([
      { KV: { Verb: "set", Key: "compat/txn/never", Value: b64("x") } },
      { KV: { Verb: "lock", Key: "compat/txn/l", Value: b64("x") } },
      { KV: { Verb: "frobnicate", Key: "compat/txn/f" } },
      { KV: { Verb: "get", Key: "compat/txn/absent" } },
    ] as never);
    const err = (await failed.then(
      () => undefined,
      (e: unknown) => e,
    )) as TxnRejection | undefined;
    expect(err?.response?.statusCode).toBe(409);
    expect(err?.response?.body).toEqual({
      Results: null,
      Errors: [
        { OpIndex: 1, What: "missing session" },
        { OpIndex: 2, What: 'unknown KV verb "frobnicate"' },
      ],
    });
    expect(await getItem("compat/txn/never")).toBeUndefined();
  });

  it("an unlock without a session and a missing key for get are errors of their operations", async () => {
    const unlock = (await consul.transaction
      .create([{ KV: { Verb: "unlock", Key: "compat/txn/u", Value: b64("x") } }] as never)
      .then(
        () => undefined,
        (e: unknown) => e,
      )) as TxnRejection | undefined;
    expect(unlock?.response?.body.Errors).toEqual([{ OpIndex: 0, What: "missing session" }]);

    const get = (await consul.transaction
      .create([{ KV: { Verb: "get", Key: "compat/txn/absent" } }] as never)
      .then(
        () => undefined,
        (e: unknown) => e,
      )) as TxnRejection | undefined;
    expect(get?.response?.statusCode).toBe(409);
    expect(get?.response?.body.Errors).toEqual([
      { OpIndex: 0, What: 'key "compat/txn/absent" doesn\'t exist' },
    ]);
  });
});
