// Agents' membership services in-process: real gossip pools on loopback port 0, real data dirs, fast
// protocol timings so failures are detected in about a second.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { type AgentConfig, buildAgentConfig } from "../../src/config/index.js";
import { AgentMembership, type MembershipOptions } from "../../src/membership/index.js";

export const FAST = {
  lan: {
    probeInterval: 200,
    probeTimeout: 100,
    gossipInterval: 50,
    suspicionMult: 2,
    pushPullInterval: 2000,
    reconnectInterval: 2000,
  },
  wan: {
    probeInterval: 200,
    probeTimeout: 100,
    gossipInterval: 50,
    suspicionMult: 2,
    pushPullInterval: 2000,
    reconnectInterval: 2000,
  },
};

const base = buildAgentConfig(
  { node_name: "base", bind_addr: "127.0.0.1" },
  { dev: false, hostname: "base", clockOffsetMs: 0, configFiles: [] },
).config;

/** A configuration with both serf ports free (0); `overrides` replace whole fields. */
export function agentConfig(name: string, overrides: Partial<AgentConfig> = {}): AgentConfig {
  return {
    ...base,
    nodeName: name,
    ports: { ...base.ports, serfLan: 0, serfWan: 0 },
    retryIntervalMs: 200,
    retryIntervalWanMs: 200,
    ...overrides,
  };
}

const started: AgentMembership[] = [];
const dirs: string[] = [];

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cairn-membership-"));
  dirs.push(dir);
  return dir;
}

export async function startMember(
  name: string,
  options: Partial<Omit<MembershipOptions, "config">> & { config?: Partial<AgentConfig> } = {},
): Promise<AgentMembership> {
  const { config, ...rest } = options;
  const m = await AgentMembership.start({
    config: agentConfig(name, config),
    nodeId: `00000000-0000-4000-8000-${name.padStart(12, "0").slice(-12)}`,
    log: pino({ level: "silent" }),
    gossip: FAST,
    joinTimeoutMs: 1000,
    ...rest,
  });
  started.push(m);
  return m;
}

export async function stopAll(): Promise<void> {
  await Promise.all(started.splice(0).map((m) => m.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function statusOf(observer: AgentMembership, name: string, wan = false): number | undefined {
  return observer.members({ wan }).find((m) => m.Name === name)?.Status;
}
