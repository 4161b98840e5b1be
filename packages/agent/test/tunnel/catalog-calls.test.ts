// A local agent whose catalog is a server's, through the tunnel (a client agent's anti-entropy): what it
// writes arrives intact, and what it reads back compares equal, so no sync ever repeats a write.
import { parseServiceDefinition } from "@cairn/api";
import { COMMAND_VERSION, encodeCommand } from "@cairn/fsm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCatalog } from "../../src/local/catalog.js";
import { LocalAgent } from "../../src/local/local-agent.js";
import { planSync } from "../../src/local/sync-plan.js";
import { TunnelPool, tunnelCatalog } from "../../src/tunnel/index.js";
import { NODE } from "../local/harness.js";
import { leadingTunnelServer } from "./harness.js";

const log = pino({ level: "silent" });
const server = leadingTunnelServer("catalog-srv");
let pool: TunnelPool;

beforeAll(() => {
  pool = new TunnelPool({ servers: () => [server().ref], log });
});

afterAll(() => {
  pool?.close();
});

describe("the catalog through the tunnel", () => {
  it("syncs a client's services and checks so that a second comparison finds nothing to write", async () => {
    const catalog = tunnelCatalog(pool);
    const agent = new LocalAgent({
      node: NODE,
      catalog,
      log,
      dataDir: undefined,
      enableScriptChecks: false,
      enableLocalScriptChecks: false,
    });
    agent.start({ services: [], checks: [] });
    try {
      const def = parseServiceDefinition({
        Name: "web",
        Tags: ["a", "b"],
        Port: 80,
        Meta: { version: "1" },
        Weights: { Passing: 3, Warning: 1 },
        Checks: [
          { TTL: "30s", Notes: "ttl" },
          { HTTP: "http://127.0.0.1:1/health", Interval: "1h" },
        ],
      });
      await agent.registerService(def, { replaceExistingChecks: false, token: "" });
      // What the catalog endpoint's decoding could normalize: nulls, nested objects, durations, addresses.
      const proxy = parseServiceDefinition({
        Name: "web-sidecar",
        Kind: "connect-proxy",
        Port: 21000,
        Address: "10.0.0.5",
        TaggedAddresses: { lan: { Address: "10.0.0.5", Port: 21000 } },
        EnableTagOverride: true,
        Proxy: {
          DestinationServiceName: "web",
          LocalServicePort: 80,
          Config: null,
          Upstreams: [{ DestinationName: "db", LocalBindPort: 9191, Config: { connect_timeout_ms: 500 } }],
        },
        Checks: [
          { TCP: "127.0.0.1:1", Interval: "1h", Timeout: "2s", DeregisterCriticalServiceAfter: "90m" },
          { Name: "alias", AliasService: "web" },
        ],
      });
      await agent.registerService(proxy, { replaceExistingChecks: false, token: "" });
      const remote = await catalog.read(NODE.name);
      expect(remote.catalog.services.map((s) => s.Service).sort()).toEqual(["web", "web-sidecar"]);
      expect(remote.catalog.checks).toHaveLength(4);
      expect(remote).toEqual(readCatalog(server().server.backend.store, NODE.name));
      expect(planSync(agent.snapshot(), remote.catalog)).toEqual([]);
    } finally {
      agent.stop();
    }
  });

  it("refuses any command but catalog writes, and reports the catalog endpoint's refusals", async () => {
    const kvSet = {
      v: COMMAND_VERSION,
      type: "kv.set",
      ns: "default",
      key: "k",
      value: new Uint8Array(),
      flags: 0n,
      now: 0,
    } as const;
    const before = server().server.backend.store.index;
    await expect(
      pool.call("agent.catalog.write", ["KVS.Apply", JSON.stringify({ Key: "k" }), ""]),
    ).rejects.toThrow(/client agents may only write to the catalog, not KVS.Apply/);
    // The raw state-machine commands earlier client agents sent are refused, with the reason.
    await expect(pool.call("agent.catalog.apply", [encodeCommand(kvSet), ""])).rejects.toThrow(
      /agent.catalog.apply is retired/,
    );
    expect(server().server.backend.store.index).toBe(before);
    expect(server().server.backend.store.view().kvGet("k").value).toBeUndefined();
    const catalog = tunnelCatalog(pool);
    await expect(
      catalog.write({ rpc: "Catalog.Register", body: { Node: NODE.name, Address: "" } }, ""),
    ).rejects.toThrow(/^Must provide address$/);
    await expect(
      catalog.write(
        { rpc: "Catalog.Register", body: { Node: NODE.name, Address: "10.0.0.1", Datacenter: "dc9" } },
        "",
      ),
    ).rejects.toThrow(/^No path to datacenter$/);
    await expect(pool.call("agent.catalog.read", [42])).rejects.toThrow(/needs a node name/);
    await expect(pool.call("nope", [])).rejects.toThrow(/unknown agent RPC nope/);
  });
});
