// Two datacenters of three servers, dc1 primary: ACL replication (policies, roles, global tokens, never
// local ones, deletions), forwarding of global writes from the secondary, config entry replication and a
// discovery chain failing over across datacenters. The replication cycle is shortened with Cairn's own
// knobs (acl.replication_interval, acl.replication_initial_delay); nothing here sleeps.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT_START_MS,
  type AgentProcess,
  AgentScratch,
  type Federation,
  freePorts,
  pause,
  resume,
  serverFlags,
  spawnAgent,
  startFederation,
  stop,
  waitFor,
} from "../../../../scripts/lib/index.js";
import { call, ok } from "./harness.js";

const ROOT = "3f1b2c4d-0000-4000-8000-000000000001";
const INTERVAL_S = 2;
const acl = (replication: string) =>
  [
    `primary_datacenter = "dc1"`,
    `acl {`,
    `  enabled = true`,
    `  default_policy = "allow"`,
    `  enable_token_replication = true`,
    `  replication_interval = "${INTERVAL_S}s"`,
    `  replication_initial_delay = "1s"`,
    `  tokens {`,
    `    initial_management = "${ROOT}"`,
    `    replication = "${replication}"`,
    `  }`,
    `}`,
  ].join("\n");

const scratch = new AgentScratch();
let fed: Federation;

beforeAll(async () => {
  fed = await startFederation(scratch.root, {
    datacenters: ["dc1", "dc2"],
    clients: false,
    flags: () => ["-hcl", acl(ROOT)],
  });
}, 180_000);

afterAll(async () => {
  await fed?.stop();
  await scratch.dispose();
});

const auth = { "X-Consul-Token": ROOT };
const primary = () => fed.dc("dc1").servers[0]!;
const secondaries = () => fed.dc("dc2").servers;
const secondary = () => secondaries()[1]!;

interface Status {
  Enabled: boolean;
  Running: boolean;
  SourceDatacenter: string;
  ReplicationType: string;
  ReplicatedIndex: number;
  ReplicatedTokenIndex: number;
  LastSuccess: string;
  LastError: string;
  LastErrorMessage: string;
}

/** The status of dc2's leader (the one running replication). */
async function leaderStatus(): Promise<Status> {
  for (const s of secondaries()) {
    const st = await ok<Status>(s, "/v1/acl/replication?stale", "GET", undefined, auth);
    if (st.Running) return st;
  }
  throw new Error("no dc2 server runs replication");
}

/** Until dc2's leader has replicated tokens up to dc1's `atIndex`. */
async function replicatedTo(atIndex: bigint): Promise<Status> {
  return waitFor(
    `dc2 to replicate dc1's tokens up to index ${atIndex}`,
    async () => {
      const st = await leaderStatus().catch(() => undefined);
      return st && BigInt(st.ReplicatedTokenIndex) >= atIndex && st.LastSuccess > st.LastError
        ? st
        : undefined;
    },
    60_000,
    200,
  );
}

/** `secret` resolves in every dc2 server (replicated through dc2's Raft). */
async function resolvesEverywhere(secret: string, expected: boolean): Promise<void> {
  for (const s of secondaries()) {
    await waitFor(
      `token ${expected ? "present" : "gone"} on ${s.name}`,
      async () => {
        const res = await call(s, "/v1/acl/token/self", "GET", undefined, { "X-Consul-Token": secret });
        return (res.status === 200) === expected ? true : undefined;
      },
      30_000,
      200,
    );
  }
}

describe("ACL replication from the primary datacenter", { timeout: 180_000 }, () => {
  it("reports live status on the secondary's leader and Consul's answer in the primary", async () => {
    const st = await waitFor(
      "a first successful replication cycle",
      async () => {
        const s = await leaderStatus().catch(() => undefined);
        return s && s.LastSuccess !== "0001-01-01T00:00:00Z" ? s : undefined;
      },
      60_000,
      200,
    );
    expect(st).toMatchObject({
      Enabled: true,
      Running: true,
      SourceDatacenter: "dc1",
      ReplicationType: "tokens",
    });
    expect(st.ReplicatedIndex).toBeGreaterThan(0);
    // Every server answers with the leader's status, as Consul forwards it there; `stale` answers locally.
    const all = await Promise.all(
      secondaries().map((s) => ok<Status>(s, "/v1/acl/replication", "GET", undefined, auth)),
    );
    expect(all.every((s) => s.Running && s.Enabled)).toBe(true);
    const own = await Promise.all(
      secondaries().map((s) => ok<Status>(s, "/v1/acl/replication?stale", "GET", undefined, auth)),
    );
    expect(own.filter((s) => s.Running)).toHaveLength(1);
    const inPrimary = await ok<Status>(primary(), "/v1/acl/replication", "GET", undefined, auth);
    expect(inPrimary).toMatchObject({ Enabled: false, Running: false, SourceDatacenter: "dc1" });
  });

  it("a policy and a global token made in the primary work in the secondary within a cycle", async () => {
    const policy = await ok<{ ID: string }>(
      primary(),
      "/v1/acl/policy",
      "PUT",
      { Name: "no-secrets", Rules: 'key_prefix "secret/" { policy = "deny" }' },
      auth,
    );
    const made = await call(primary(), "/v1/acl/token", "PUT", { Policies: [{ ID: policy.ID }] }, auth);
    const token = made.json as { AccessorID: string; SecretID: string };
    const started = performance.now();
    await replicatedTo(createdAt(made));
    await resolvesEverywhere(token.SecretID, true);
    // Replication is a cycle away at most (the knob says 2 s); a loaded machine gets generous slack.
    expect(performance.now() - started).toBeLessThan(INTERVAL_S * 1000 * 2 + 20_000);
    const self = await ok<{ AccessorID: string; Local: boolean }>(
      secondary(),
      "/v1/acl/token/self",
      "GET",
      undefined,
      {
        "X-Consul-Token": token.SecretID,
      },
    );
    expect(self).toMatchObject({ AccessorID: token.AccessorID, Local: false });
    // The replicated policy is enforced in dc2.
    await ok(secondary(), "/v1/kv/secret/a", "PUT", "x", auth);
    const denied = await call(secondary(), "/v1/kv/secret/a", "GET", undefined, {
      "X-Consul-Token": token.SecretID,
    });
    expect(denied.status).toBe(403);
  });

  it("a local token stays in its datacenter, in either direction", async () => {
    const here = await call(
      primary(),
      "/v1/acl/token",
      "PUT",
      { Local: true, Description: "dc1 only" },
      auth,
    );
    expect(here.status).toBe(200);
    const mine = await ok<{ AccessorID: string; SecretID: string }>(
      secondary(),
      "/v1/acl/token",
      "PUT",
      { Local: true, Description: "dc2 only" },
      auth,
    );
    // A later global write, so that a status past its index proves a full cycle ran after both.
    const marker = await call(primary(), "/v1/acl/token", "PUT", { Description: "marker" }, auth);
    await replicatedTo(createdAt(marker));
    const dc1Local = here.json as { SecretID: string };
    for (const s of secondaries()) {
      const res = await call(s, "/v1/acl/token/self", "GET", undefined, {
        "X-Consul-Token": dc1Local.SecretID,
      });
      expect(res.status).toBe(403);
    }
    // dc2's local token was made in dc2 and survives the cycles; dc1 never sees it.
    await resolvesEverywhere(mine.SecretID, true);
    const inDc1 = await call(primary(), `/v1/acl/token/${mine.AccessorID}`, "GET", undefined, auth);
    // Consul's answer to an accessor it does not hold: 403 ACL not found.
    expect(inDc1.status).toBe(403);
    expect(inDc1.text).toMatch(/ACL not found/);
  });

  it("global writes in the secondary go to the primary; deletions there revoke here", async () => {
    const made = await ok<{ AccessorID: string; SecretID: string; Local: boolean }>(
      secondary(),
      "/v1/acl/token",
      "PUT",
      { Description: "made through dc2" },
      auth,
    );
    expect(made.Local).toBe(false);
    // Written in dc1 at once (forwarded), in dc2 by replication.
    const there = await ok<{ AccessorID: string }>(
      primary(),
      `/v1/acl/token/${made.AccessorID}`,
      "GET",
      undefined,
      auth,
    );
    expect(there.AccessorID).toBe(made.AccessorID);
    await resolvesEverywhere(made.SecretID, true);
    // Policy writes too.
    const p = await ok<{ ID: string }>(
      secondary(),
      "/v1/acl/policy",
      "PUT",
      { Name: "via-dc2", Rules: "" },
      auth,
    );
    expect((await call(primary(), `/v1/acl/policy/${p.ID}`, "GET", undefined, auth)).status).toBe(200);

    const gone = await call(primary(), `/v1/acl/token/${made.AccessorID}`, "DELETE", undefined, auth);
    expect(gone.status).toBe(200);
    await resolvesEverywhere(made.SecretID, false);
  });
});

describe("a primary cut off from the secondary", { timeout: 180_000 }, () => {
  it("the secondary keeps serving what it has, reports the failure, and catches up after the heal", async () => {
    const before = await call(primary(), "/v1/acl/token", "PUT", { Description: "before the cut" }, auth);
    await replicatedTo(createdAt(before));
    // Written just before the cut: whether a cycle saw them before it does not matter.
    const during: string[] = [];
    let last = 0n;
    for (let i = 0; i < 20; i++) {
      const t = await call(primary(), "/v1/acl/token", "PUT", { Description: `cut ${i}` }, auth);
      during.push((t.json as { AccessorID: string }).AccessorID);
      last = createdAt(t);
    }
    // The primary's servers stop answering: to dc2 that is a cut WAN.
    for (const s of fed.dc("dc1").servers) pause(s.process);
    try {
      const failing = await waitFor(
        "dc2 to report a failed cycle",
        async () => {
          const st = await leaderStatus().catch(() => undefined);
          return st && st.LastError > st.LastSuccess && st.LastErrorMessage !== "" ? st : undefined;
        },
        90_000,
        250,
      );
      expect(failing.Running).toBe(true);
      // What was replicated still works.
      await resolvesEverywhere((before.json as { SecretID: string }).SecretID, true);
    } finally {
      for (const s of fed.dc("dc1").servers) resume(s.process);
    }
    await replicatedTo(last);
    // Nothing lost, nothing doubled: dc2's global tokens are exactly dc1's.
    const globals = async (a: AgentProcess) =>
      (await ok<{ AccessorID: string; Local: boolean }[]>(a, "/v1/acl/tokens", "GET", undefined, auth))
        .filter((t) => !t.Local)
        .map((t) => t.AccessorID)
        .sort();
    const inPrimary = await globals(primary());
    await waitFor(
      "dc2's global tokens to equal dc1's",
      async () =>
        JSON.stringify(await globals(secondary())) === JSON.stringify(inPrimary) ? true : undefined,
      60_000,
      250,
    );
    for (const id of during) expect(inPrimary).toContain(id);
  });
});

describe("config entries and discovery chains across datacenters", { timeout: 180_000 }, () => {
  it("entries written in the primary replicate; writes in the secondary are forwarded there", async () => {
    await ok(
      primary(),
      "/v1/config",
      "PUT",
      { Kind: "service-defaults", Name: "api", Protocol: "http" },
      auth,
    );
    for (const s of secondaries()) {
      await waitFor(
        `service-defaults/api on ${s.name}`,
        async () => {
          const res = await call(s, "/v1/config/service-defaults/api", "GET", undefined, auth);
          return res.status === 200 && (res.json as { Protocol: string }).Protocol === "http"
            ? true
            : undefined;
        },
        60_000,
        200,
      );
    }
    await ok(
      secondary(),
      "/v1/config",
      "PUT",
      { Kind: "service-defaults", Name: "web", Protocol: "grpc" },
      auth,
    );
    const inPrimary = await ok<{ Protocol: string }>(
      primary(),
      "/v1/config/service-defaults/web",
      "GET",
      undefined,
      auth,
    );
    expect(inPrimary.Protocol).toBe("grpc");
    await waitFor(
      "the forwarded entry back in dc2",
      async () =>
        (await call(secondary(), "/v1/config/service-defaults/web")).status === 200 ? true : undefined,
      60_000,
      200,
    );
    // A delete in dc2 is forwarded too, and replicated back as a deletion.
    await ok(secondary(), "/v1/config/service-defaults/web", "DELETE", undefined, auth);
    expect((await call(primary(), "/v1/config/service-defaults/web")).status).toBe(404);
    await waitFor(
      "the deletion replicated to dc2",
      async () =>
        (await call(secondary(), "/v1/config/service-defaults/web")).status === 404 ? true : undefined,
      60_000,
      200,
    );
  });

  it("a resolver failing over to another datacenter compiles into remote targets, read through ?dc=", async () => {
    await ok(
      primary(),
      "/v1/config",
      "PUT",
      { Kind: "service-resolver", Name: "db", Failover: { "*": { Datacenters: ["dc1"] } } },
      auth,
    );
    await ok(
      primary(),
      "/v1/config",
      "PUT",
      { Kind: "service-resolver", Name: "legacy", Redirect: { Service: "db", Datacenter: "dc1" } },
      auth,
    );
    interface Chain {
      Chain: {
        Datacenter: string;
        Nodes: Record<string, { Resolver?: { Target: string; Failover?: { Targets: string[] } } }>;
        Targets: Record<string, { Datacenter: string }>;
      };
    }
    // Compiled in dc2 from dc2's replicated entries, asked from dc1.
    const chain = await waitFor(
      "the resolver in dc2",
      async () => {
        const res = await call(primary(), "/v1/discovery-chain/db?dc=dc2", "GET", undefined, auth);
        const c = res.json as Chain | undefined;
        return res.status === 200 && c?.Chain.Nodes["resolver:db.default.dc2"]?.Resolver?.Failover
          ? c
          : undefined;
      },
      60_000,
      200,
    );
    expect(chain.Chain.Datacenter).toBe("dc2");
    expect(chain.Chain.Nodes["resolver:db.default.dc2"]?.Resolver?.Failover?.Targets).toEqual([
      "db.default.dc1",
    ]);
    expect(chain.Chain.Targets["db.default.dc1"]?.Datacenter).toBe("dc1");
    // compile-dc: the same chain as dc2 would compile it, here.
    const asDc2 = await ok<Chain>(primary(), "/v1/discovery-chain/db?compile-dc=dc2", "GET", undefined, auth);
    expect(asDc2.Chain.Nodes["resolver:db.default.dc2"]?.Resolver?.Failover?.Targets).toEqual([
      "db.default.dc1",
    ]);
    // A redirect to another datacenter.
    const redirected = await ok<Chain>(
      primary(),
      "/v1/discovery-chain/legacy?compile-dc=dc2",
      "GET",
      undefined,
      auth,
    );
    expect(Object.keys(redirected.Chain.Targets)).toContain("db.default.dc1");
  });
});

describe("primary_datacenter agreement", { timeout: 120_000 }, () => {
  it("a server naming another primary is refused at join, with the key in the reason", async () => {
    const [http, server, serfLan, serfWan] = await freePorts(4);
    const name = "dc2-odd";
    const dataDir = join(scratch.root, name);
    const lanJoin = [...fed.dc("dc2").servers.keys()].map(
      (i) => `127.0.0.1:${portOf(fed.dc("dc2").servers[i]!)}`,
    );
    const odd: AgentProcess = spawnAgent({
      name,
      ports: { http: http!, server: server!, serfLan: serfLan!, serfWan: serfWan! },
      flags: [
        ...serverFlags({ name, dataDir, join: lanJoin, logLevel: "warn" }),
        ...["-datacenter", "dc2", "-retry-interval", "1s"],
        ...["-hcl", acl(ROOT).replace('primary_datacenter = "dc1"', 'primary_datacenter = "dc2"')],
      ],
      logFile: join(scratch.root, `${name}.log`),
    });
    try {
      const code = await Promise.race([
        odd.process.exited,
        // From the spawn: a cold start, then the join the primary refuses.
        new Promise((resolve) => setTimeout(() => resolve("still running"), AGENT_START_MS + 30_000).unref()),
      ]);
      expect(code).not.toBe("still running");
      expect(odd.process.tail()).toMatch(/primary_datacenter/);
    } finally {
      await stop(odd.process);
    }
    // The datacenter goes on as before.
    expect((await leaderStatus()).Running).toBe(true);
  });
});

/** The Raft index a write answered with stored (writes carry no X-Consul-Index). */
function createdAt(res: { json: unknown }): bigint {
  return BigInt((res.json as { CreateIndex: number }).CreateIndex);
}

/** The LAN gossip (join) port an agent was started with. */
function portOf(agent: AgentProcess): number {
  return agent.options.ports.serfLan!;
}
