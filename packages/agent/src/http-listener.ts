import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createAdaptorServer, serve } from "@hono/node-server";
import { type UnixSocketSettings, unixSocketPath } from "./config/unix-sockets.js";
import type { AgentTls } from "./tls/agent-tls.js";
import type { StanzaMaterial } from "./tls/material.js";
import { listenUnixSocket } from "./unix-socket-listener.js";

type Fetch = (request: Request) => Response | Promise<Response>;

/**
 * How long a stop waits for writes already being served: a held write (no leader) answers within Consul's 7 s
 * rpc_hold_timeout, anything else within a Raft round trip.
 */
const DRAIN_WRITES_MS = 8_000;
const DRAIN_POLL_MS = 10;

/** How long an HTTPS client may take to finish its handshake (Node's default is two minutes). */
const HANDSHAKE_TIMEOUT_MS = 10_000;

/** For `unix:///path` addresses: the socket's owner and mode, and who hears about a replaced socket. */
export interface UnixSocketOptions {
  settings: UnixSocketSettings;
  onReplace(path: string): void;
}

const NO_SETTINGS: UnixSocketSettings = { mode: undefined, user: undefined, group: undefined };

/** HTTP (or, given TLS, HTTPS) servers of the agent's API, one per listen address. */
export class HttpListeners {
  /** Writes (anything but GET and HEAD) being served: a stop lets them answer before it closes connections. */
  private writes = 0;

  private constructor(
    private readonly servers: Server[],
    private readonly stopReloads: () => void = () => {},
  ) {
    for (const s of servers) {
      s.on("request", (req: IncomingMessage, res: ServerResponse) => {
        if (req.method === "GET" || req.method === "HEAD") return;
        this.writes++;
        res.once("close", () => this.writes--);
      });
    }
  }

  /**
   * Listens on every address (space-separated, as Consul's client_addr) at `port`, or on the socket of a
   * `unix:///path` address; rejects if any fails. With `tls` the servers speak HTTPS with its `https`
   * certificate (client certificates required with verify_incoming) and take new certificates on reload.
   */
  static async start(
    fetch: Fetch,
    addresses: string,
    port: number,
    tls?: AgentTls,
    unix?: UnixSocketOptions,
  ): Promise<HttpListeners> {
    const hosts = addresses.split(/\s+/).filter((h) => h !== "");
    const servers: Server[] = [];
    try {
      for (const hostname of hosts) {
        const tlsServer = tls
          ? { createServer: createHttpsServer, serverOptions: httpsOptions(tls.httpsMaterial) }
          : {};
        const socket = unixSocketPath(hostname);
        if (socket !== undefined) {
          const server = createAdaptorServer({ fetch, ...tlsServer }) as Server;
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
        const server = serve({ fetch, hostname, port, ...tlsServer }) as Server;
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
      const a = s.address() as AddressInfo | string;
      if (typeof a === "string") return `unix://${a}`;
      return a.family === "IPv6" ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
    });
  }

  /**
   * Stops accepting, lets writes in progress answer (a client must not see a write it sent fail because the
   * agent was stopped cleanly), then ends open connections (blocking queries would otherwise hold shutdown
   * for minutes).
   */
  async close(drainWritesMs = DRAIN_WRITES_MS): Promise<void> {
    this.stopReloads();
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
