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
