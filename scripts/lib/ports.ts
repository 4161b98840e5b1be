// Free loopback ports for servers a harness is about to start. They are released at once, so the server
// must bind them soon after; they are chosen so that nothing else is likely to take them meanwhile.

import { createServer, type Server } from "node:net";

/** Below Linux's default ephemeral range (32768-60999), where outgoing connections take their ports. */
const STABLE_MIN = 10_000;
const STABLE_MAX = 32_000;
/** How many slices the range is cut into: more than the suite's parallel workers. */
const SLICES = 16;
/**
 * Ports in that range that fetch() refuses to connect to ("bad port" in the Fetch standard's list). Tests and
 * benchmarks reach agents with fetch: an agent given 10080 served, but none of their requests reached it.
 */
const FETCH_BLOCKED = new Set([10_080]);

/**
 * The next port to try in [min, min + size) from `cursor` on, in turn, passing over those fetch() refuses;
 * with the cursor to continue from.
 */
export function nextCandidate(min: number, size: number, cursor: number): { port: number; cursor: number } {
  for (let c = cursor; ; c++) {
    const port = min + (c % size);
    if (!FETCH_BLOCKED.has(port)) return { port, cursor: c + 1 };
  }
}

/**
 * The ports this process draws from. Each vitest worker (VITEST_POOL_ID 1..N, unique among the files running
 * at once) has its own slice, so two test files starting agents at the same time never pick the same port:
 * a port is released between being picked and being bound by the agent, seconds later on a busy machine.
 * Outside vitest (benchmarks, scripts), the whole range.
 */
function ownRange(): { min: number; size: number } {
  const pool = Number(process.env.VITEST_POOL_ID ?? 0);
  if (!Number.isInteger(pool) || pool < 1) return { min: STABLE_MIN, size: STABLE_MAX - STABLE_MIN };
  const size = Math.floor((STABLE_MAX - STABLE_MIN) / SLICES);
  // A second suite on the same machine (another checkout) shifts its workers' slices past the first's.
  const offset = Number(process.env.CAIRN_PORT_SLICE_OFFSET ?? 0) || 0;
  return { min: STABLE_MIN + ((pool - 1 + offset) % SLICES) * size, size };
}

/**
 * Where the next pick starts: ports are handed out in turn from a random start, so a process does not hand
 * out again a port it gave a moment ago (whose agent may not have bound it yet).
 */
let cursor = Math.floor(Math.random() * ownRange().size);

function listenOn(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

/**
 * `count` distinct ports that were free on 127.0.0.1 a moment ago, below the ephemeral range: a port the OS
 * hands out for listen(0) is also where any outgoing connection on the host may land before the agent binds
 * it (EADDRINUSE at start on a busy machine), which matters when many agents start over many seconds.
 */
export async function stablePorts(count: number): Promise<number[]> {
  const held: Server[] = [];
  const ports: number[] = [];
  try {
    for (let attempts = 0; ports.length < count; attempts++) {
      const { min, size } = ownRange();
      if (attempts > Math.min(size, count * 50))
        throw new Error(`no ${count} free ports in ${min}-${min + size}`);
      const next = nextCandidate(min, size, cursor);
      cursor = next.cursor;
      const port = next.port;
      const server = await listenOn(port);
      if (server === undefined) continue;
      held.push(server);
      ports.push(port);
    }
  } finally {
    await Promise.all(held.map((s) => new Promise((resolve) => s.close(resolve))));
  }
  return ports;
}

/** `count` distinct ports that were free on 127.0.0.1 a moment ago; see `stablePorts`. */
export function freePorts(count: number): Promise<number[]> {
  return stablePorts(count);
}

export async function freePort(): Promise<number> {
  const [port] = await stablePorts(1);
  return port!;
}
