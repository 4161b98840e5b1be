// Raft timing in /v1/agent/metrics of a real `-dev` agent: commit time and fsync samples after a write.
import { afterAll, describe, expect, it } from "vitest";
import {
  AGENT_START_MS,
  type AgentProcess,
  AgentScratch,
  awaitHttp,
  freePorts,
  http,
  signal,
  waitFor,
} from "../../../../scripts/lib/index.js";

const scratch = new AgentScratch();
let agent: AgentProcess | undefined;

afterAll(() => scratch.dispose());

interface Summary {
  Samples: Array<{ Name: string; Count: number; Min: number; Max: number }>;
}

describe("raft metrics of a -dev agent", () => {
  it("lists consul.raft.commitTime, commitNumLogs and fsync samples after a write, and the leadership counters", {
    timeout: AGENT_START_MS + 30_000,
  }, async () => {
    const [httpPort, serverPort] = await freePorts(2);
    agent = scratch.spawn({
      name: "dev-metrics",
      ports: { http: httpPort!, server: serverPort! },
      flags: ["-dev", "-hcl", 'telemetry { prometheus_retention_time = "60s" }'],
      logFile: scratch.path("dev-metrics.log"),
    });
    await awaitHttp(agent);
    // Samples live in 10-second intervals: write and read again until both land in the same one.
    const samples = await waitFor(
      "raft timing samples after a write",
      async () => {
        const put = await http(`${agent!.url}/v1/kv/metrics-probe`, "PUT", "x").catch(() => undefined);
        if (put?.text !== "true") return undefined;
        const summary = JSON.parse((await http(`${agent!.url}/v1/agent/metrics`)).text) as Summary;
        const byName = new Map(summary.Samples.map((s) => [s.Name, s]));
        const wanted = ["consul.raft.commitTime", "consul.raft.commitNumLogs", "consul.raft.fsync"];
        return wanted.every((n) => byName.has(n)) ? byName : undefined;
      },
      20_000,
    );
    const commit = samples.get("consul.raft.commitTime")!;
    expect(commit.Count).toBeGreaterThan(0);
    expect(commit.Min).toBeGreaterThanOrEqual(0);
    expect(commit.Max).toBeLessThan(5_000);
    expect(samples.get("consul.raft.commitNumLogs")!.Min).toBeGreaterThanOrEqual(1);
    // Leadership is counted from the server's events (cumulative, so the Prometheus view shows it).
    const prom = (await http(`${agent.url}/v1/agent/metrics?format=prometheus`)).text;
    expect(prom).toMatch(/^consul_raft_state_leader 1$/m);
    expect(prom).toMatch(/^consul_raft_leader_changes \d+$/m);
    signal(agent.process, "SIGTERM");
    expect(await agent.process.exited).toBe(0);
  });
});
