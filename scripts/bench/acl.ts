// KV throughput with ACLs on (a token linking ten policies of twenty rules each) against ACLs off (not a
// test). Each side is one `cairn agent -dev` process; the two run one after the other, driven by the same
// closed-loop keep-alive load generator with the same 100-byte values and key space.
//
// Then the same question in one process, where a shared machine's noise cancels out: the HTTP app's
// fetch over an in-memory backend, ACLs on and off alternating in batches, the median ratio reported.
//
//   node --conditions=source --import tsx scripts/bench/acl.ts [--seconds 10] [--clients 16,64]
//        [--keys 1000] [--rounds 2] [--batches 40] [--processes false]

import { parseArgs } from "node:util";
import { spawnAgent } from "../lib/agent.js";
import { freePort } from "../lib/ports.js";
import { stop, stopAll } from "../lib/processes.js";
import { waitFor } from "../lib/wait.js";
import { useBuiltAgents } from "./lib/built.js";
import { type HttpTarget, httpOk, httpRequest, keepAliveAgent } from "./lib/http-client.js";
import { type LoadResult, runLoad } from "./lib/load.js";
import { formatMs, formatRate, formatRatio, markdownTable } from "./lib/table.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    warmup: { type: "string", default: "1" },
    clients: { type: "string", default: "16,64" },
    keys: { type: "string", default: "1000" },
    rounds: { type: "string", default: "2" },
    batches: { type: "string", default: "40" },
    processes: { type: "string", default: "true" },
  },
});
const durationMs = Number(values.seconds) * 1000;
const warmupMs = Number(values.warmup) * 1000;
const clientCounts = values.clients.split(",").map(Number);
const keyCount = Number(values.keys);
const rounds = Number(values.rounds);
const value = Buffer.alloc(100, "v");
const ROOT = "b0b0b0b0-0000-4000-8000-000000000001";

interface Agent {
  http: HttpTarget;
  token: string;
  stop(): Promise<void>;
}

async function startAgent(acl: boolean): Promise<Agent> {
  const httpPort = await freePort();
  const serverPort = await freePort();
  const args = ["-dev", "-log-level", "warn"];
  if (acl) {
    args.push(
      "-hcl",
      `acl { enabled = true\n default_policy = "deny"\n tokens { initial_management = "${ROOT}" } }`,
    );
  }
  const child = spawnAgent({
    name: acl ? "acl-on" : "acl-off",
    ports: { http: httpPort, server: serverPort },
    flags: args,
  });
  const http = { host: "127.0.0.1", port: httpPort };
  const pool = keepAliveAgent(1);
  const headers: Record<string, string> = acl ? { "X-Consul-Token": ROOT } : {};
  await waitFor("the agent to accept writes", async () => {
    const res = await httpRequest(pool, http, "PUT", "/v1/kv/ready", "1", headers).catch(() => undefined);
    return res?.status === 200 ? true : undefined;
  });
  const token = acl ? await benchToken(pool, http) : "";
  pool.destroy();
  return { http, token, stop: () => stop(child.process) };
}

/** The benchmark token, linking the ten policies. */
async function benchToken(pool: ReturnType<typeof keepAliveAgent>, http: HttpTarget): Promise<string> {
  const headers = { "X-Consul-Token": ROOT, "content-type": "application/json" };
  const policies: Array<{ ID: string }> = [];
  for (const rules of benchPolicies()) {
    const body = JSON.stringify({ Name: `bench-${policies.length}`, Rules: rules });
    const res = await httpOk(pool, http, "PUT", "/v1/acl/policy", body, headers);
    policies.push({ ID: (JSON.parse(res.body.toString()) as { ID: string }).ID });
  }
  const res = await httpOk(
    pool,
    http,
    "PUT",
    "/v1/acl/token",
    JSON.stringify({ Policies: policies }),
    headers,
  );
  return (JSON.parse(res.body.toString()) as { SecretID: string }).SecretID;
}

async function measure(agent: Agent, op: "put" | "get", clients: number): Promise<LoadResult> {
  const pool = keepAliveAgent(clients);
  const headers: Record<string, string> = { "content-type": "application/octet-stream" };
  if (agent.token !== "") headers["X-Consul-Token"] = agent.token;
  try {
    return await runLoad({
      concurrency: clients,
      durationMs,
      warmupMs,
      op: async (worker, seq) => {
        const key = `bench/k${(worker * 7919 + seq) % keyCount}`;
        if (op === "put") await httpOk(pool, agent.http, "PUT", `/v1/kv/${key}`, value, headers);
        else await httpOk(pool, agent.http, "GET", `/v1/kv/${key}`, undefined, headers);
      },
    });
  } finally {
    pool.destroy();
  }
}

async function fill(agent: Agent): Promise<void> {
  const pool = keepAliveAgent(16);
  const headers: Record<string, string> = agent.token ? { "X-Consul-Token": agent.token } : {};
  for (let i = 0; i < keyCount; i += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, keyCount - i) }, (_, j) =>
        httpOk(pool, agent.http, "PUT", `/v1/kv/bench/k${i + j}`, value, headers),
      ),
    );
  }
  pool.destroy();
}

/** An in-process API (ACLs on with the bench token, or off) and a request runner over its fetch. */
async function inProcessApp(acl: boolean): Promise<(method: string, key: string) => Promise<void>> {
  const { AclEnforcer, createApi, GLOBAL_MANAGEMENT_POLICY, LocalBackend, managementToken } = await import(
    "@cairn/api"
  );
  const backend = new LocalBackend();
  const enforcer = acl
    ? new AclEnforcer({ store: backend.store, datacenter: "dc1", defaultPolicy: "deny" })
    : undefined;
  if (acl) {
    await backend.apply({
      v: 1,
      type: "acl.init",
      policy: GLOBAL_MANAGEMENT_POLICY,
      anonymous: {
        ...managementToken("00000000-0000-0000-0000-000000000002", "anonymous", "Anonymous"),
        Policies: [],
      },
      initialManagement: managementToken("00000000-0000-0000-0000-0000000000aa", ROOT, "root"),
      now: Date.now(),
    });
  }
  const app = createApi({
    backend,
    nodeName: "bench",
    datacenter: "dc1",
    ...(enforcer ? { acl: enforcer } : {}),
  });
  const call = async (method: string, path: string, body: string | undefined, token: string) => {
    // Both sides send the header (ACLs off ignore it), so only the checks differ.
    const headers = { "X-Consul-Token": token };
    const res = await app.fetch(new Request(`http://bench${path}`, { method, body, headers }));
    if (res.status !== 200) throw new Error(`${method} ${path} -> ${res.status} ${await res.text()}`);
    return res;
  };
  let token = ROOT;
  if (acl) {
    const ids: Array<{ ID: string }> = [];
    for (const rules of benchPolicies()) {
      const body = JSON.stringify({ Name: `bench-${ids.length}`, Rules: rules });
      const res = await call("PUT", "/v1/acl/policy", body, ROOT);
      ids.push({ ID: ((await res.json()) as { ID: string }).ID });
    }
    const res = await call("PUT", "/v1/acl/token", JSON.stringify({ Policies: ids }), ROOT);
    token = ((await res.json()) as { SecretID: string }).SecretID;
  }
  const text = value.toString();
  return async (method, key) => {
    const res = await call(method, `/v1/kv/${key}`, method === "PUT" ? text : undefined, token);
    await res.arrayBuffer();
  };
}

/** A/B batches alternating on and off; the median of the per-pair throughput ratios. */
async function inProcess(): Promise<string> {
  const on = await inProcessApp(true);
  const off = await inProcessApp(false);
  const perBatch = 500;
  const batches = Number(values.batches);
  const rows: string[][] = [];
  for (const method of ["PUT", "GET"]) {
    const batch = async (run: typeof on) => {
      const t0 = performance.now();
      for (let i = 0; i < perBatch; i++) await run(method, `bench/k${i % keyCount}`);
      return performance.now() - t0;
    };
    await batch(on);
    await batch(off);
    const ratios: number[] = [];
    let onMs = 0;
    let offMs = 0;
    for (let b = 0; b < batches; b++) {
      const onFirst = b % 2 === 0;
      const first = await batch(onFirst ? on : off);
      const second = await batch(onFirst ? off : on);
      const [msOn, msOff] = onFirst ? [first, second] : [second, first];
      onMs += msOn;
      offMs += msOff;
      ratios.push(msOff / msOn);
    }
    ratios.sort((x, y) => x - y);
    const median = ratios[Math.floor(ratios.length / 2)] ?? Number.NaN;
    const n = perBatch * batches;
    rows.push([
      method,
      formatRate((n / offMs) * 1000),
      formatRate((n / onMs) * 1000),
      `${median.toFixed(3)}x`,
    ]);
  }
  return markdownTable(["op", "ACLs off (req/s)", "ACLs on (req/s)", "median on/off"], rows);
}

/** Ten policies of twenty rules; the last rule of the last one grants the benchmark's keys. */
function benchPolicies(): string[] {
  const out: string[] = [];
  for (let p = 0; p < 10; p++) {
    const rules: string[] = [];
    for (let r = 0; r < 20; r++) {
      const kind = ["key_prefix", "service_prefix", "node_prefix", "session_prefix"][r % 4];
      rules.push(`${kind} "team${p}/area${r}/" { policy = "${r % 3 === 0 ? "write" : "read"}" }`);
    }
    if (p === 9) rules[19] = 'key_prefix "bench/" { policy = "write" }';
    out.push(rules.join("\n"));
  }
  return out;
}

async function main(): Promise<void> {
  console.log("In process (HTTP app over an in-memory backend, alternating batches):");
  console.log(await inProcess());
  if (values.processes === "false") return;
  const best = new Map<string, LoadResult>();
  for (let round = 0; round < rounds; round++) {
    for (const acl of [false, true]) {
      const agent = await startAgent(acl);
      try {
        await fill(agent);
        for (const clients of clientCounts) {
          for (const op of ["put", "get"] as const) {
            const r = await measure(agent, op, clients);
            if (r.errors > 0) throw new Error(`${op} with ACLs ${acl ? "on" : "off"}: ${r.firstError}`);
            const key = `${op}/${clients}/${acl}`;
            // Best of the rounds on each side: the machine is shared, noise only ever slows a run down.
            if ((best.get(key)?.opsPerSec ?? 0) < r.opsPerSec) best.set(key, r);
          }
        }
      } finally {
        await agent.stop();
      }
    }
  }
  const rows: string[][] = [];
  for (const op of ["put", "get"]) {
    for (const clients of clientCounts) {
      const off = best.get(`${op}/${clients}/false`)!;
      const on = best.get(`${op}/${clients}/true`)!;
      rows.push([
        op.toUpperCase(),
        String(clients),
        formatRate(off.opsPerSec),
        formatRate(on.opsPerSec),
        formatRatio(on.opsPerSec, off.opsPerSec),
        `${formatMs(off.p99)} / ${formatMs(on.p99)}`,
      ]);
    }
  }
  console.log("\nOne agent process per side (best of the rounds):");
  console.log(
    markdownTable(["op", "clients", "ACLs off", "ACLs on (10x20 rules)", "on/off", "p99 off / on"], rows),
  );
}

useBuiltAgents();
main()
  .catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  })
  .finally(() => stopAll());
