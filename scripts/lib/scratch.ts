// A test's agents and their temporary directory, disposed of together.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentOptions, type AgentProcess, spawnAgent } from "./agent.js";
import { kill } from "./processes.js";

export class AgentScratch {
  readonly root = mkdtempSync(join(tmpdir(), "cairn-agent-test-"));
  /** Every agent spawned here, in start order (stopped ones included). */
  readonly agents: AgentProcess[] = [];

  /** A path inside the scratch directory. */
  path(...parts: string[]): string {
    return join(this.root, ...parts);
  }

  spawn(options: AgentOptions): AgentProcess {
    const agent = spawnAgent(options);
    this.agents.push(agent);
    return agent;
  }

  /** Kills every agent by PID and removes the directory (for afterAll). */
  async dispose(): Promise<void> {
    await Promise.all(this.agents.map((a) => kill(a.process)));
    // CAIRN_KEEP_TEST_DIRS=1 keeps data directories and agent logs to read after a failure.
    if (process.env.CAIRN_KEEP_TEST_DIRS) console.error(`kept ${this.root}`);
    else rmSync(this.root, { recursive: true, force: true });
  }
}
