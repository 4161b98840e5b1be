import { availableParallelism, cpus } from "node:os";
import type { LocalCheck } from "@cairn/api";
import { CONSUL_API_VERSION } from "./version.js";

/** `/v1/agent/self` Stats: sections of string values, as Consul's (agent, build, consul, raft, runtime, serf_*). */
export type AgentStats = Record<string, Record<string, string>>;

/** Counts of the local agent's services and checks (Consul's `agent` section). */
export function agentSection(services: number, checks: readonly LocalCheck[]): Record<string, string> {
  const ofType = (type: string) => String(checks.filter((c) => c.Type === type).length);
  return {
    check_monitors: ofType("script"),
    check_ttls: ofType("ttl"),
    checks: String(checks.length),
    services: String(services),
  };
}

export function buildSection(): Record<string, string> {
  return { prerelease: "", revision: "cairn", version: CONSUL_API_VERSION, version_metadata: "" };
}

const GO_ARCH: Record<string, string> = { x64: "amd64", ia32: "386", arm64: "arm64", arm: "arm" };

/** Consul reports Go's runtime; the Node.js equivalents are given under the same names. */
export function runtimeSection(): Record<string, string> {
  return {
    arch: GO_ARCH[process.arch] ?? process.arch,
    cpu_count: String(cpus().length),
    max_procs: String(availableParallelism()),
    os: process.platform,
    version: process.version,
  };
}

/** One gossip pool's member counts (Consul's `serf_lan` / `serf_wan`), from `/v1/agent/members` Status codes. */
export function serfSection(
  members: readonly { Status: number }[],
  pool: { healthScore: number },
  encrypted: boolean,
): Record<string, string> {
  const count = (status: number) => String(members.filter((m) => m.Status === status).length);
  return {
    encrypted: String(encrypted),
    failed: count(4),
    health_score: String(pool.healthScore),
    left: count(3),
    members: String(members.length),
  };
}
