// A real single-node Cairn HTTP API on a loopback port, in process.
import type { AddressInfo } from "node:net";
import { createApi, LocalBackend } from "@cairn/api";
import { serve } from "@hono/node-server";

export interface TestServer {
  /** Environment that points the CLI at this server. */
  env: Record<string, string>;
  url: string;
  close(): Promise<void>;
}

const NODE = "cli-test";

export async function startServer(): Promise<TestServer> {
  const app = createApi({ backend: new LocalBackend(), nodeName: NODE, datacenter: "dc1" });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Sessions belong to a registered node with a passing serfHealth check: register both as the agent would.
  const registered = await fetch(`http://${address}/v1/txn`, {
    method: "PUT",
    body: JSON.stringify([
      { Node: { Verb: "set", Node: { Node: NODE, Address: "127.0.0.1" } } },
      {
        Check: {
          Verb: "set",
          Check: { Node: NODE, CheckID: "serfHealth", Name: "Serf Health Status", Status: "passing" },
        },
      },
    ]),
  });
  if (!registered.ok) throw new Error(`node registration failed: ${await registered.text()}`);
  return {
    env: { CAIRN_HTTP_ADDR: address },
    url: `http://${address}`,
    close: () =>
      new Promise((resolve) => {
        // Blocking queries may still be open; do not wait for them to time out.
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
