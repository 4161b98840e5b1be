import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RaftNodeStatus } from "@cairn/raft";
import { afterAll, describe, expect, it } from "vitest";
import { formatLogLine } from "../../../src/logger.js";
import { withDefaultPort } from "../../../src/server/join/protocol.js";
import { healthyLearners } from "../../../src/server/leader/learner-promotion.js";
import { resolveNodeId } from "../../../src/server/node-identity.js";

const dir = mkdtempSync(join(tmpdir(), "cairn-agent-misc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("node identity", () => {
  it("generates a UUID once and keeps it in <data_dir>/node-id", async () => {
    const first = await resolveNodeId(undefined, join(dir, "a"));
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(readFileSync(join(dir, "a", "node-id"), "utf8")).toBe(first);
    expect(await resolveNodeId(undefined, join(dir, "a"))).toBe(first);
  });

  it("prefers the configured node_id, and refuses a corrupt file", async () => {
    expect(await resolveNodeId("ABCDEF01-0000-4000-8000-000000000000", dir)).toBe(
      "abcdef01-0000-4000-8000-000000000000",
    );
    writeFileSync(join(dir, "node-id"), "garbage");
    await expect(resolveNodeId(undefined, dir)).rejects.toThrow("does not hold a UUID");
  });
});

describe("retry_join addresses", () => {
  it("fills in the LAN serf port as Consul does", () => {
    expect(withDefaultPort("10.0.0.1", 8301)).toBe("10.0.0.1:8301");
    expect(withDefaultPort("10.0.0.1:9000", 8301)).toBe("10.0.0.1:9000");
    expect(withDefaultPort("::1", 8301)).toBe("[::1]:8301");
    expect(withDefaultPort("[::1]:9000", 8301)).toBe("[::1]:9000");
    expect(withDefaultPort("[::1]", 8301)).toBe("[::1]:8301");
  });
});

describe("learner health (autopilot)", () => {
  const status = (match: number, connected: boolean): RaftNodeStatus =>
    ({
      lastIndex: 1_000,
      conf: { voters: ["a"], learners: ["l"] },
      connected: connected ? ["l"] : [],
      progress: {
        l: {
          match,
          next: match + 1,
          state: "replicate",
          recentActive: true,
          inflight: 0,
          pendingSnapshot: 0,
        },
      },
    }) as unknown as RaftNodeStatus;

  it("counts a learner as healthy only when connected and within max_trailing_logs", () => {
    expect(healthyLearners(status(900, true), 250)).toEqual(["l"]);
    expect(healthyLearners(status(700, true), 250)).toEqual([]);
    expect(healthyLearners(status(1_000, false), 250)).toEqual([]);
  });
});

describe("text log lines", () => {
  it("renders a pino record as Consul's text line", () => {
    const line = formatLogLine(
      JSON.stringify({
        level: 30,
        time: Date.UTC(2024, 0, 2, 3, 4, 5),
        component: "raft",
        msg: "leader elected",
        id: "s1",
        term: 3,
      }),
    );
    expect(line).toBe("2024-01-02T03:04:05.000Z [INFO]  agent.raft: leader elected: id=s1 term=3\n");
    expect(formatLogLine(JSON.stringify({ level: 50, time: 0, msg: "bad thing", err: "a b" }))).toBe(
      '1970-01-01T00:00:00.000Z [ERROR] agent: bad thing: err="a b"\n',
    );
  });
});
