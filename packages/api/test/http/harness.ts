import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Logger } from "pino";
import { createApi } from "../../src/app.js";
import type { Authorizer } from "../../src/authorizer.js";
import type { ApiConfig, ClusterBackend } from "../../src/backend.js";
import { httpEdge } from "../../src/http/edge.js";
import { shareBlockingQueries } from "../../src/http/shared-fetch.js";
import { LocalBackend } from "../../src/local-backend.js";

export const NODE = "agent-one";

export interface TestServer {
  url: string;
  backend: LocalBackend;
  close(): Promise<void>;
  req(
    method: string,
    path: string,
    body?: string | Uint8Array,
    headers?: Record<string, string>,
  ): Promise<Response>;
  json<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T; res: Response }>;
}

/** A real HTTP server on a random loopback port over a LocalBackend. */
export async function startServer(
  config: Partial<ApiConfig> = {},
  options: {
    logger?: Logger;
    wrap?: (backend: LocalBackend) => ClusterBackend;
    authorizer?: Authorizer;
    /** Identical blocking queries share one run, as an agent serves them (shared-fetch.ts). */
    share?: boolean;
  } = {},
): Promise<TestServer> {
  const backend = new LocalBackend();
  const app = createApi({
    backend: options.wrap ? options.wrap(backend) : backend,
    nodeName: NODE,
    datacenter: "dc1",
    config,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.authorizer ? { authorizer: options.authorizer } : {}),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    // Through the HTTP edge, as an agent serves: prepared answers go out as pre-rendered bytes (wire.ts).
    const fetch = options.share ? shareBlockingQueries(app.fetch) : app.fetch;
    const s = serve({ fetch: httpEdge(fetch), port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const req = (
    method: string,
    path: string,
    body?: string | Uint8Array,
    headers: Record<string, string> = {},
  ) => fetch(url + path, { method, body: body as RequestInit["body"], headers });
  return {
    url,
    backend,
    req,
    async json<T>(method: string, path: string, body?: unknown) {
      const res = await req(
        method,
        path,
        body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      );
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // plain-text error bodies stay text
      }
      return { status: res.status, body: parsed as T, res };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

/** Registers the agent's node with a passing serfHealth check, as an agent does at start. */
export async function registerAgentNode(s: TestServer, node = NODE): Promise<void> {
  const res = await s.json("PUT", "/v1/txn", [
    { Node: { Verb: "set", Node: { Node: node, Address: "127.0.0.1" } } },
    {
      Check: {
        Verb: "set",
        Check: { Node: node, CheckID: "serfHealth", Name: "Serf Health Status", Status: "passing" },
      },
    },
  ]);
  if (res.status !== 200)
    throw new Error(`node registration failed: ${res.status} ${JSON.stringify(res.body)}`);
}

export const b64 = (s: string) => Buffer.from(s).toString("base64");
