// python-consul2's test suite starts `consul` with this command line, in a fresh temporary folder holding the
// config.json and encrypt.json it wrote (ACL tokens it leaves unset are written as null), then waits for a
// leader and a registered service to show up in health. Cairn in its place, unchanged, then the answers
// that suite's tests depend on: ACL endpoints refused with 401 when ACLs are off, whatever the body, and an
// unknown session's renew a 404.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  agentArgv,
  freePorts,
  http,
  type Spawned,
  spawnTracked,
  stop,
  waitFor,
} from "../../../scripts/lib/index.js";

interface Instance {
  dir: string;
  base: string;
  process: Spawned;
}

const instances: Instance[] = [];

/** conftest.py's start_consul_instance, step by step. */
async function startConsulInstance(acl?: { master: string; agent: string | null }): Promise<Instance> {
  const [httpPort, serfLan, serfWan, server] = (await freePorts(4)) as [number, number, number, number];
  const config: Record<string, unknown> = {
    ports: { http: httpPort, serf_lan: serfLan, serf_wan: serfWan, server, dns: -1 },
    performance: { raft_multiplier: 1 },
    enable_script_checks: true,
    datacenter: "dc1",
    primary_datacenter: "dc1",
  };
  if (acl) {
    config.acl = {
      enabled: true,
      default_policy: "deny",
      enable_token_persistence: true,
      tokens: { master: acl.master, agent: acl.agent },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "cairn-pyconsul-"));
  writeFileSync(join(dir, "config.json"), JSON.stringify(config));
  writeFileSync(
    join(dir, "encrypt.json"),
    JSON.stringify({ encrypt: "pUqJrVyVRj5jsiYEkM/tFQYfWyJIv4s3XkvDwy7Cu5s=" }),
  );
  const flags = [
    "-dev",
    "-bind=127.0.0.1",
    "-config-dir=.",
    "-bootstrap-expect",
    "1",
    "-config-file=encrypt.json",
  ];
  const { command, args, cwd } = agentArgv({ flags, workDir: dir });
  const instance = {
    dir,
    base: `http://127.0.0.1:${httpPort}/v1/`,
    process: spawnTracked("pyconsul", command, args, { cwd }),
  };
  instances.push(instance);
  const token = acl ? `?token=${acl.master}` : "";
  await waitFor(
    "a leader",
    async () => {
      const r = await http(`${instance.base}status/leader`).catch(() => undefined);
      return r && r.text.trim() !== '""' ? true : undefined;
    },
    60_000,
  );
  // Right after the election the leader may not have set up ACLs yet (the master token is created by its
  // first duties), so a refused registration is tried again until it is taken.
  await waitFor("foo registered", async () => {
    const r = await http(`${instance.base}agent/service/register${token}`, "PUT", '{"name": "foo"}');
    if (r.status !== 200) throw new Error(`register answered ${r.status} ${r.text.trim()}`);
    return true;
  });
  await waitFor("foo in health", async () => {
    const r = await http(`${instance.base}health/service/foo${token}`);
    return r.status === 200 && r.text.trim() !== "[]" ? true : undefined;
  });
  await http(`${instance.base}agent/service/deregister/foo${token}`, "PUT");
  return instance;
}

let plain: Instance;
let withAcl: Instance;
const MASTER = "3c9b4f7a-5d8e-4f21-9a6b-0e1d2c3b4a59";

beforeAll(async () => {
  [plain, withAcl] = await Promise.all([
    startConsulInstance(),
    startConsulInstance({ master: MASTER, agent: null }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all(instances.map((i) => stop(i.process)));
  for (const i of instances) rmSync(i.dir, { recursive: true, force: true });
});

describe("python-consul2's harness", () => {
  it("with ACLs off, every ACL endpoint answers 401 ACL support disabled, before looking at the body", async () => {
    for (const [method, path, body] of [
      ["GET", "acl/list", undefined],
      ["PUT", "acl/create", "null"],
      ["PUT", "acl/token", "{broken"],
      ["PUT", "acl/policy", "null"],
      ["DELETE", "acl/policy/00000000-0000-0000-0000-000000000001", undefined],
      ["PUT", "acl/bootstrap", undefined],
    ] as const) {
      const r = await http(`${plain.base}${path}`, method, body);
      expect(r.status, `${method} ${path}`).toBe(401);
      expect(r.text).toBe("ACL support disabled");
    }
  });

  it("agent/self has exactly Consul's sections, its Member among the members, the leader in Stats", async () => {
    const self = JSON.parse((await http(`${plain.base}agent/self`)).text) as {
      Member: unknown;
      Stats: { consul: { leader_addr: string } };
    };
    expect(new Set(Object.keys(self))).toEqual(
      new Set(["Member", "Stats", "Config", "Coord", "DebugConfig", "Meta"]),
    );
    expect(JSON.parse((await http(`${plain.base}agent/members`)).text)).toContainEqual(self.Member);
    const leader = JSON.parse((await http(`${plain.base}status/leader`)).text) as string;
    expect(self.Stats.consul.leader_addr).toBe(leader);
    expect(JSON.parse((await http(`${plain.base}status/peers`)).text)).toContain(leader);
  });

  it("session info of an unknown ID is empty and a release with one is false", async () => {
    expect((await http(`${plain.base}session/info/${"1".repeat(36)}`)).text).toBe("[]");
    expect((await http(`${plain.base}kv/foo?release=foo`, "PUT", "1")).text).toBe("false");
    expect((await http(`${plain.base}kv/foo?acquire=foo`, "PUT", "1")).status).toBe(500);
  });

  it("renewing an unknown session is a 404 (NotFound in python-consul)", async () => {
    expect((await http(`${plain.base}session/renew/${"1".repeat(36)}`, "PUT")).status).toBe(404);
  });

  it("with ACLs on, the master token works and a second bootstrap is refused with the reset index", async () => {
    const r = await http(`${withAcl.base}acl/tokens?token=${MASTER}`);
    expect(r.status).toBe(200);
    expect((await http(`${withAcl.base}kv/x`, "PUT", "1")).status).toBe(403);
    const again = await http(`${withAcl.base}acl/bootstrap`, "PUT");
    expect(again.status).toBe(403);
    expect(again.text).toMatch(/^Permission denied: ACL bootstrap no longer allowed \(reset index: \d+\)$/);
  });
});
