import type { Server } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { AgentTls } from "./tls/agent-tls.js";
import type { StanzaMaterial } from "./tls/material.js";

type Fetch = (request: Request) => Response | Promise<Response>;

/** How long an HTTPS client may take to finish its handshake (Node's default is two minutes). */
const HANDSHAKE_TIMEOUT_MS = 10_000;

/** HTTP (or, given TLS, HTTPS) servers of the agent's API, one per listen address. */
export class HttpListeners {
  private constructor(
    private readonly servers: Server[],
    private readonly stopReloads: () => void = () => {},
  ) {}

  /**
   * Listens on every address (space-separated, as Consul's client_addr) at `port`; rejects if any fails.
   * With `tls` the servers speak HTTPS with its `https` certificate (client certificates required with
   * verify_incoming) and take new certificates on reload.
   */
  static async start(fetch: Fetch, addresses: string, port: number, tls?: AgentTls): Promise<HttpListeners> {
    const hosts = addresses.split(/\s+/).filter((h) => h !== "");
    const servers: Server[] = [];
    try {
      for (const hostname of hosts) {
        const server = (
          tls
            ? serve({
                fetch,
                hostname,
                port,
                createServer: createHttpsServer,
                serverOptions: httpsOptions(tls.httpsMaterial),
              })
            : serve({ fetch, hostname, port })
        ) as Server;
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
    const stopReloads = tls?.onHttpsReload((material) => {
      for (const server of servers)
        (server as unknown as HttpsServer).setSecureContext(contextOptions(material));
    });
    return new HttpListeners(servers, stopReloads);
  }

  addresses(): string[] {
    return this.servers.map((s) => {
      const a = s.address() as AddressInfo;
      return a.family === "IPv6" ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
    });
  }

  /** Stops accepting, and ends open connections (blocking queries would otherwise hold shutdown for minutes). */
  async close(): Promise<void> {
    this.stopReloads();
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

function contextOptions(material: StanzaMaterial) {
  if (!material.server) throw new Error("the HTTPS API has no certificate");
  return material.server;
}

function httpsOptions(material: StanzaMaterial) {
  const verify = material.settings.verifyIncoming;
  return {
    ...contextOptions(material),
    requestCert: verify,
    rejectUnauthorized: verify,
    handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
  };
}
