// Which server leads, as the servers themselves say through /v1/status/leader.

import type { AgentProcess } from "./agent.js";
import { http } from "./http.js";
import { isRunning } from "./processes.js";
import { GiveUp, waitFor } from "./wait.js";

/** The RPC address `url`'s server names as leader; "" when it names none or does not answer. */
export async function leaderAddress(url: string, timeoutMs = 2000): Promise<string> {
  try {
    const res = await http(`${url}/v1/status/leader`, "GET", undefined, { timeoutMs });
    if (res.status !== 200) return "";
    const leader: unknown = JSON.parse(res.text);
    return typeof leader === "string" ? leader : "";
  } catch {
    return "";
  }
}

/**
 * Waits until every one of `agents` names the same leader among them, and returns it. Gives up at once
 * when one of them has exited.
 */
export async function awaitLeader<T extends AgentProcess>(
  agents: readonly T[],
  timeoutMs = 60_000,
): Promise<T> {
  return waitFor(
    "the servers to agree on a leader",
    async () => {
      for (const a of agents) {
        if (!isRunning(a.process)) throw new GiveUp(`${a.name} exited: ${a.process.tail()}`);
      }
      const named = await Promise.all(agents.map((a) => leaderAddress(a.url)));
      const first = named[0];
      if (!first || !named.every((n) => n === first)) return undefined;
      return agents.find((a) => a.rpcAddress === first);
    },
    timeoutMs,
    200,
  );
}
