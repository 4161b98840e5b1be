// Free loopback ports for servers a harness is about to start (the OS picks them; they are released at
// once, so the server must bind them right after).

import { createServer, type Server } from "node:net";

function listenOnAnyPort(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address for a free port");
  return address.port;
}

/** `count` distinct ports that were free on 127.0.0.1 a moment ago (all held at once, so none repeats). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: count }, listenOnAnyPort));
  const ports = servers.map(portOf);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/** Below Linux's default ephemeral range (32768-60999), where outgoing connections take their ports. */
const STABLE_MIN = 10_000;
const STABLE_MAX = 32_000;

function listenOn(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

/**
 * Like `freePorts`, but below the ephemeral range: a port the OS hands out for listen(0) is also where any
 * outgoing connection on the host may land before the agent binds it (EADDRINUSE at start on a busy
 * machine), which matters when many agents start over many seconds.
 */
export async function stablePorts(count: number): Promise<number[]> {
  const held: Server[] = [];
  const ports: number[] = [];
  try {
    for (let attempts = 0; ports.length < count; attempts++) {
      if (attempts > count * 50) throw new Error(`no ${count} free ports below ${STABLE_MAX}`);
      const port = STABLE_MIN + Math.floor(Math.random() * (STABLE_MAX - STABLE_MIN));
      if (ports.includes(port)) continue;
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
