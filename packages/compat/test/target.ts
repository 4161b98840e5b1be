// The Cairn server the compatibility tests talk to: a real `cairn agent -dev` process (spawned, stopped by
// PID in afterAll) by default, or the in-process API over a LocalBackend (CAIRN_COMPAT_TARGET=inproc) for
// working on the API alone.

import type { AddressInfo } from "node:net";
import { createApi, LocalBackend } from "@cairn/api";
import { serve } from "@hono/node-server";
import { startCairnDev } from "../../../scripts/lib/cluster.js";

export interface Target {
  host: string;
  port: number;
  close(): Promise<void>;
}

const NODE_NAME = "compat-node";

export function startTarget(): Promise<Target> {
  return process.env.CAIRN_COMPAT_TARGET === "inproc" ? startInProcess() : startDevAgent();
}

async function startDevAgent(): Promise<Target> {
  const agent = await startCairnDev(NODE_NAME);
  return { ...agent.http, close: agent.stop };
}

async function startInProcess(): Promise<Target> {
  const backend = new LocalBackend();
  const app = createApi({ backend, nodeName: NODE_NAME, datacenter: "dc1" });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  // An agent registers its own node at start; sessions refer to it.
  const res = await fetch(`http://127.0.0.1:${port}/v1/txn`, {
    method: "PUT",
    body: JSON.stringify([
      { Node: { Verb: "set", Node: { Node: NODE_NAME, Address: "127.0.0.1" } } },
      {
        Check: {
          Verb: "set",
          Check: { Node: NODE_NAME, CheckID: "serfHealth", Name: "Serf Health Status", Status: "passing" },
        },
      },
    ]),
  });
  if (res.status !== 200) throw new Error(`node registration failed: ${res.status} ${await res.text()}`);
  return {
    host: "127.0.0.1",
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
