import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApi } from "@cairn/api";
import pino from "pino";
import { afterAll, beforeAll } from "vitest";
import { freePorts } from "../../../../scripts/lib/index.js";
import { buildAgentConfig } from "../../src/config/index.js";
import { CairnServer } from "../../src/server/server.js";
import type { ServerRef } from "../../src/tunnel/index.js";

export interface TunnelServer {
  server: CairnServer;
  ref: ServerRef;
  /** Headers of every request the server's HTTP app answered through the tunnel. */
  received: Headers[];
  /** Requests for this path are never answered (a server that dies mid-request). */
  stall: string | undefined;
  /** How many of the app's responses the tunnel read back through the fetch Response API. */
  bodyReads: number;
  /** How many requests' bodies the app read through the fetch Request API. */
  requestBodyReads: number;
  /** Stops the server (the data directory stays until `dispose`). */
  stop(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * A real single-server cluster in this process (Raft bootstrapped on its own, on a free port) whose RPC
 * port serves the client tunnel, answered by its HTTP API as run.ts builds it.
 */
export async function startTunnelServer(name: string): Promise<TunnelServer> {
  const dir = mkdtempSync(join(tmpdir(), `cairn-tunnel-${name}-`));
  const [port, serfLan] = await freePorts(2);
  const { config } = buildAgentConfig(
    {
      node_name: name,
      server: true,
      bootstrap: true,
      // An election timeout of about a second, not Consul's production five.
      performance: { raft_multiplier: 1 },
      bind_addr: "127.0.0.1",
      data_dir: dir,
      ports: { server: port!, serf_lan: serfLan!, http: -1 },
    },
    { dev: false, hostname: name, clockOffsetMs: 0, configFiles: [] },
  );
  const log = pino({ level: "silent" });
  let fetch: (request: Request) => Response | Promise<Response> = () =>
    new Response("starting", { status: 503 });
  const server = await CairnServer.start({
    config,
    dataDir: dir,
    log,
    clientFetch: (request) => fetch(request),
  });
  const app = createApi({ backend: server.backend, nodeName: name, datacenter: "dc1", logger: log });
  const received: Headers[] = [];
  const s = { stall: undefined as string | undefined, bodyReads: 0, requestBodyReads: 0 };
  fetch = async (request) => {
    received.push(request.headers);
    const stream = request.body;
    Object.defineProperty(request, "body", {
      get: () => {
        s.requestBodyReads++;
        return stream;
      },
    });
    if (new URL(request.url).pathname === s.stall) return new Promise<Response>(() => {});
    const response = await app.fetch(request);
    const read = response.arrayBuffer.bind(response);
    Object.defineProperty(response, "arrayBuffer", {
      value: () => {
        s.bodyReads++;
        return read();
      },
    });
    return response;
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.stop();
  };
  return Object.assign(s, {
    server,
    received,
    ref: { name, rpcAddress: `127.0.0.1:${port}` },
    stop,
    dispose: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

/**
 * A leading single-server cluster for the tests of the file or describe block that calls this: started before
 * them, disposed after them. Returns its accessor.
 */
export function leadingTunnelServer(name: string): () => TunnelServer {
  let started: TunnelServer | undefined;
  beforeAll(async () => {
    started = await startTunnelServer(name);
    await ready(started);
  }, 30_000);
  afterAll(async () => {
    await started?.dispose();
  });
  return () => {
    if (started === undefined) throw new Error(`tunnel server ${name} has not started`);
    return started;
  };
}

/** Resolves once the server leads its cluster of one. */
export async function ready(s: TunnelServer, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!s.server.raft?.isLeader()) {
    if (Date.now() > deadline) throw new Error(`${s.ref.name} did not become leader in time`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Resolves once `condition` holds, checked every 10 ms; throws after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
