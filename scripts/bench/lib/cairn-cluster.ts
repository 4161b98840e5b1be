// Transitional: scripts/bench/acl.ts (written elsewhere) still spawns agents through this name; new code
// uses spawnAgent from scripts/lib/agent.ts. Delete once acl.ts does too.

import { agentArgv } from "../../lib/agent.js";
import { type Spawned, spawnTracked } from "../../lib/processes.js";

/** `cairn agent <args>` from the source tree; `args` name the ports. */
export function spawnCairnAgent(name: string, args: string[]): Spawned {
  const { command, args: argv, cwd } = agentArgv({ flags: args });
  return spawnTracked(name, command, argv, { cwd });
}
