// runAgent's start-up refusals, in process: each returns exit code 1 with a one-line reason.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { freePorts } from "../../../../scripts/lib/ports.js";
import { runAgent } from "../../src/run.js";

const dir = mkdtempSync(join(tmpdir(), "cairn-run-agent-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let stderr: string[] = [];
beforeEach(() => {
  stderr = [];
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    stderr.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stdout, "write").mockImplementation(() => true);
});
afterEach(() => vi.restoreAllMocks());

describe("runAgent refusals", () => {
  it("exits 1 naming the key of a bad value", async () => {
    expect(await runAgent(["-server", "-data-dir", dir, "-http-port", "eighty"])).toBe(1);
    expect(stderr.join("")).toMatch(/http-port|ports\.http/);
  });

  it("exits 1 for a client agent without a data directory; ACLs on are no reason to refuse one", async () => {
    expect(await runAgent(["-hcl", "acl { enabled = true }"])).toBe(1);
    expect(stderr.join("")).toContain("data_dir is required");
    expect(stderr.join("")).not.toContain("ACL");
  });

  it("gives up after retry_max rounds in which no retry_join target answered", async () => {
    const [httpPort, serverPort, serfPort, dead] = await freePorts(4);
    const started = Date.now();
    const code = await runAgent([
      "-server",
      "-data-dir",
      join(dir, "retry"),
      "-bootstrap-expect",
      "3",
      "-bind",
      "127.0.0.1",
      "-http-port",
      String(httpPort),
      "-server-port",
      String(serverPort),
      "-serf-lan-port",
      String(serfPort),
      "-retry-join",
      `127.0.0.1:${dead}`,
      "-retry-max",
      "2",
      "-log-level",
      "error",
    ]);
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 15_000);
});
