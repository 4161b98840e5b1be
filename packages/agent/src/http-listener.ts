import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer, serve } from "@hono/node-server";
import { type UnixSocketSettings, unixSocketPath } from "./config/unix-sockets.js";
import { listenUnixSocket } from "./unix-socket-listener.js";

type Fetch = (request: Request) => Response | Promise<Response>;

/** For `unix:///path` addresses: the socket's owner and mode, and who hears about a replaced socket. */
export interface UnixSocketOptions {
  settings: UnixSocketSettings;
  onReplace(path: string): void;
}

const NO_SETTINGS: UnixSocketSettings = { mode: undefined, user: undefined, group: undefined };

/** HTTP servers of the agent's API, one per listen address. */
export class HttpListeners {
  private constructor(private readonly servers: Server[]) {}

  /**
   * Listens on every address (space-separated, as Consul's client_addr) at `port`, or on the socket of a
   * `unix:///path` address; rejects if any fails.
   */
  static async start(
    fetch: Fetch,
    addresses: string,
    port: number,
    unix?: UnixSocketOptions,
  ): Promise<HttpListeners> {
    const hosts = addresses.split(/\s+/).filter((h) => h !== "");
    const servers: Server[] = [];
    try {
      for (const hostname of hosts) {
        const socket = unixSocketPath(hostname);
        if (socket !== undefined) {
          const server = createAdaptorServer({ fetch }) as Server;
          servers.push(server);
          await listenUnixSocket(
            server,
            socket,
            unix?.settings ?? NO_SETTINGS,
            unix?.onReplace ?? (() => {}),
          ).catch((err: Error) => {
            throw new Error(`cannot listen on ${hostname}: ${err.message}`);
          });
          continue;
        }
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
      const a = s.address() as AddressInfo | string;
      if (typeof a === "string") return `unix://${a}`;
      return a.family === "IPv6" ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
    });
  }

  /** Stops accepting, and ends open connections (blocking queries would otherwise hold shutdown for minutes). */
  async close(): Promise<void> {
    await Promise.all(
      this.servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            if (!s.listening) return resolve();
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    );
  }
}
