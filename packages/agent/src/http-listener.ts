import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";

type Fetch = (request: Request) => Response | Promise<Response>;

/**
 * How long a stop waits for writes already being served: a held write (no leader) answers within Consul's 7 s
 * rpc_hold_timeout, anything else within a Raft round trip.
 */
const DRAIN_WRITES_MS = 8_000;
const DRAIN_POLL_MS = 10;

/** HTTP servers of the agent's API, one per listen address. */
export class HttpListeners {
  /** Writes (anything but GET and HEAD) being served: a stop lets them answer before it closes connections. */
  private writes = 0;

  private constructor(private readonly servers: Server[]) {
    for (const s of servers) {
      s.on("request", (req: IncomingMessage, res: ServerResponse) => {
        if (req.method === "GET" || req.method === "HEAD") return;
        this.writes++;
        res.once("close", () => this.writes--);
      });
    }
  }

  /** Listens on every address (space-separated, as Consul's client_addr) at `port`; rejects if any fails. */
  static async start(fetch: Fetch, addresses: string, port: number): Promise<HttpListeners> {
    const hosts = addresses.split(/\s+/).filter((h) => h !== "");
    const servers: Server[] = [];
    try {
      for (const hostname of hosts) {
        const server = serve({ fetch, hostname, port }) as Server;
        servers.push(server);
        await new Promise<void>((resolve, reject) => {
          server.once("listening", resolve);
          server.once("error", (err: Error) =>
            reject(new Error(`cannot listen on ${hostname}:${port}: ${err.message}`)),
          );
        });
      }
    } catch (err) {
      await new HttpListeners(servers).close();
      throw err;
    }
    return new HttpListeners(servers);
  }

  addresses(): string[] {
    return this.servers.map((s) => {
      const a = s.address() as AddressInfo;
      return a.family === "IPv6" ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
    });
  }

  /**
   * Stops accepting, lets writes in progress answer (a client must not see a write it sent fail because the
   * agent was stopped cleanly), then ends open connections (blocking queries would otherwise hold shutdown
   * for minutes).
   */
  async close(drainWritesMs = DRAIN_WRITES_MS): Promise<void> {
    const closed = this.servers.map(
      (s) =>
        new Promise<void>((resolve) => {
          if (!s.listening) return resolve();
          s.close(() => resolve());
          s.closeIdleConnections();
        }),
    );
    const deadline = performance.now() + drainWritesMs;
    while (this.writes > 0 && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    for (const s of this.servers) s.closeAllConnections();
    await Promise.all(closed);
  }
}
