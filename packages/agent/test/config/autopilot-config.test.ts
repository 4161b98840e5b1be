import { describe, expect, it } from "vitest";
import { ConfigError, loadAgentConfig } from "../../src/index.js";

const load = (argv: string[]) => loadAgentConfig(argv, { HOSTNAME: "test-host" });

describe("autopilot settings", () => {
  it("default as Consul's, dead servers removed at the next check", () => {
    expect(load([]).config.autopilot).toEqual({
      cleanupDeadServers: true,
      lastContactThresholdMs: 200,
      maxTrailingLogs: 250,
      minQuorum: 0,
      serverStabilizationTimeMs: 10_000,
      deadServerCleanupThresholdMs: 0,
    });
  });

  it("read Consul's names and Cairn's dead_server_cleanup_threshold", () => {
    const { config, warnings } = load([
      "-hcl",
      'autopilot { cleanup_dead_servers = false, min_quorum = 3, last_contact_threshold = "1s", dead_server_cleanup_threshold = "2m" }',
    ]);
    expect(warnings).toEqual([]);
    expect(config.autopilot).toMatchObject({
      cleanupDeadServers: false,
      minQuorum: 3,
      lastContactThresholdMs: 1_000,
      deadServerCleanupThresholdMs: 120_000,
    });
  });

  it("refuse a threshold that is not a duration", () => {
    expect(() => load(["-hcl", 'autopilot { dead_server_cleanup_threshold = "soon" }'])).toThrow(ConfigError);
  });
});
