import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type AgentTokenName = "default" | "agent" | "agent_recovery" | "replication";

/**
 * The agent's ACL tokens set through `/v1/agent/token/:name`. With `acl.enable_token_persistence` they are
 * written to `<data_dir>/acl-tokens.json` (atomically) and read back at start; otherwise they last until
 * the agent stops, as in Consul.
 */
export class AgentTokens {
  private readonly tokens = new Map<string, string>();
  private readonly file: string | undefined;

  constructor(
    dataDir: string | undefined,
    persist: boolean,
    initial: Partial<Record<AgentTokenName, string>>,
  ) {
    this.file = persist && dataDir !== undefined ? join(dataDir, "acl-tokens.json") : undefined;
    for (const [name, token] of Object.entries(initial)) if (token) this.tokens.set(name, token);
    if (this.file !== undefined) {
      try {
        const saved = JSON.parse(readFileSync(this.file, "utf8")) as Record<string, unknown>;
        for (const [name, token] of Object.entries(saved))
          if (typeof token === "string") this.tokens.set(name, token);
      } catch {
        // no file yet
      }
    }
  }

  get(name: AgentTokenName): string {
    return this.tokens.get(name) ?? "";
  }

  set(name: AgentTokenName, token: string): void {
    this.tokens.set(name, token);
    if (this.file === undefined) return;
    mkdirSync(join(this.file, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(`${this.file}.tmp`, JSON.stringify(Object.fromEntries(this.tokens)), { mode: 0o600 });
    renameSync(`${this.file}.tmp`, this.file);
  }
}
