// ACL replication benchmark (not a test): how long 1,000 new global tokens made in the primary take to be
// usable in a secondary. Two datacenters on loopback, WAN-joined (scripts/lib/federation.ts), dc1 primary,
// dc2 replicating with token replication on, at spec 1's cycle (30 s) and apply rate (100 updates per
// second) unless told otherwise. After a first cycle has run, the tokens are written in dc1 (16 at a time);
// the lag is measured from the last write until dc2's leader lists every one of them. Goal: within two
// cycles.
//
//   node --import tsx scripts/bench/acl-replication.ts [--tokens 1000] [--interval 30] [--servers 1] [--keep]

import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { AgentProcess } from "../lib/agent.js";
import { startFederation } from "../lib/federation.js";
import { stopAll } from "../lib/processes.js";
import { waitFor } from "../lib/wait.js";
import { httpOk, keepAliveAgent } from "./lib/http-client.js";
import { markdownTable } from "./lib/table.js";

const { values } = parseArgs({
  options: {
    tokens: { type: "string", default: "1000" },
    interval: { type: "string", default: "30" },
    servers: { type: "string", default: "1" },
    keep: { type: "boolean", default: false },
  },
});
const tokenCount = Number(values.tokens);
const intervalS = Number(values.interval);
const ROOT = "ac1ac1ac-0000-4000-8000-000000000001";
const auth = { "X-Consul-Token": ROOT };
const log = (line: string) => console.error(`[acl-replication-bench] ${line}`);

const hcl = [
  `primary_datacenter = "dc1"`,
  `acl {`,
  `  enabled = true`,
  `  default_policy = "allow"`,
  `  enable_token_replication = true`,
  `  replication_interval = "${intervalS}s"`,
  // The first cycle soon after the election, so the benchmark starts from a replicated secondary.
  `  replication_initial_delay = "1s"`,
  `  tokens {`,
  `    initial_management = "${ROOT}"`,
  `    replication = "${ROOT}"`,
  `  }`,
  `}`,
].join("\n");

interface Status {
  Running: boolean;
  ReplicatedTokenIndex: number;
  LastSuccess: string;
}

const http = keepAliveAgent(16);

async function json<T>(a: AgentProcess, method: string, path: string, body?: unknown): Promise<T> {
  const res = await httpOk(
    http,
    a.http,
    method,
    path,
    body === undefined ? undefined : JSON.stringify(body),
    auth,
  );
  return JSON.parse(res.body.toString()) as T;
}

async function leaderStatus(servers: readonly AgentProcess[]): Promise<Status | undefined> {
  for (const s of servers) {
    const st = await json<Status>(s, "GET", "/v1/acl/replication").catch(() => undefined);
    if (st?.Running) return st;
  }
  return undefined;
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "cairn-bench-acl-replication-"));
  let report = "";
  try {
    log(`starting two datacenters of ${values.servers} server(s)`);
    const fed = await startFederation(root, {
      datacenters: ["dc1", "dc2"],
      servers: Number(values.servers),
      clients: false,
      flags: () => ["-hcl", hcl],
    });
    const primary = fed.dc("dc1").servers[0]!;
    const secondaries = fed.dc("dc2").servers;
    await waitFor(
      "a first replication cycle in dc2",
      async () => {
        const st = await leaderStatus(secondaries);
        return st && st.LastSuccess !== "0001-01-01T00:00:00Z" ? true : undefined;
      },
      120_000,
      250,
    );
    log(`writing ${tokenCount} global tokens in dc1`);
    const writeStart = performance.now();
    const made: string[] = [];
    let next = 0;
    let lastIndex = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < tokenCount) {
          const i = next++;
          const t = await json<{ AccessorID: string; CreateIndex: number }>(primary, "PUT", "/v1/acl/token", {
            Description: `bench ${i}`,
          });
          made.push(t.AccessorID);
          lastIndex = Math.max(lastIndex, t.CreateIndex);
        }
      }),
    );
    const written = performance.now();
    log(`written in ${((written - writeStart) / 1000).toFixed(1)} s; waiting for dc2`);
    const wanted = new Set(made);
    let firstSeen: number | undefined;
    await waitFor(
      "every token in dc2",
      async () => {
        const st = await leaderStatus(secondaries);
        if (!st) return undefined;
        const tokens = await json<{ AccessorID: string }[]>(secondaries[0]!, "GET", "/v1/acl/tokens?stale");
        const present = tokens.filter((t) => wanted.has(t.AccessorID)).length;
        if (present > 0) firstSeen ??= performance.now();
        return present === tokenCount && st.ReplicatedTokenIndex >= lastIndex ? true : undefined;
      },
      intervalS * 1000 * 4 + 120_000,
      100,
    );
    const done = performance.now();
    const lagS = (done - written) / 1000;
    const cycles = lagS / intervalS;
    report = [
      `## ACL replication lag (${tokenCount} new global tokens, cycle ${intervalS} s, 100 updates/s)`,
      "",
      markdownTable(
        ["measure", "value"],
        [
          ["writing the tokens in dc1", `${((written - writeStart) / 1000).toFixed(1)} s`],
          [
            "last write → first token in dc2",
            firstSeen ? `${((firstSeen - written) / 1000).toFixed(1)} s` : "-",
          ],
          ["last write → all tokens in dc2", `${lagS.toFixed(1)} s`],
          ["in replication cycles", `${cycles.toFixed(2)} (goal: at most 2)`],
          ["load average (1 min) at the end", loadavg()[0]!.toFixed(2)],
        ],
      ),
      "",
      cycles <= 2 ? "Goal met." : "Goal NOT met.",
    ].join("\n");
  } finally {
    await stopAll();
    if (values.keep) log(`data and logs kept in ${root}`);
    else await rm(root, { recursive: true, force: true });
  }
  console.log(report);
}

main().catch(async (err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  await stopAll(1000);
  process.exit(1);
});
