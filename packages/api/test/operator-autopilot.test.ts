import type { AddressInfo } from "node:net";
import type { AutopilotConfigSpec } from "@cairn/fsm";
import { serve } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { createApi } from "../src/app.js";
import type { Authorizer } from "../src/authorizer.js";
import { LocalBackend } from "../src/local-backend.js";
import { operatorRoutes, type RaftOperator } from "../src/routes/operator.js";
import type { AutopilotHealthView } from "../src/routes/operator-autopilot.js";

const server = (id: string, healthy: boolean) => ({
  ID: id,
  Name: `node-${id}`,
  Address: `10.0.0.${id}:8300`,
  SerfStatus: healthy ? "alive" : "failed",
  Version: "1.15.0",
  Leader: id === "1",
  LastContact: id === "1" ? "0s" : "12.5ms",
  LastTerm: 2,
  LastIndex: 46,
  Healthy: healthy,
  Voter: true,
  StableSince: "2026-01-01T00:00:00.000Z",
});

/** What the operator was asked to store, and at which cas. */
const writes: { config: AutopilotConfigSpec; cas: number | undefined }[] = [];

/** The seam the agent implements over Raft, answering what the test sets; a cas of 7 is the one that holds. */
function operator(health: () => AutopilotHealthView): RaftOperator {
  const unused = () => Promise.reject(new Error("not used here"));
  return {
    configuration: unused,
    removePeer: unused,
    transferLeader: unused,
    autopilotHealth: async () => health(),
    autopilotConfiguration: () => ({
      CleanupDeadServers: true,
      LastContactThreshold: "200ms",
      MaxTrailingLogs: 250,
      MinQuorum: 0,
      ServerStabilizationTime: "10s",
      RedundancyZoneTag: "",
      DisableUpgradeMigration: false,
      UpgradeVersionTag: "",
      CreateIndex: 0,
      ModifyIndex: 0,
    }),
    setAutopilotConfiguration: async (config, cas) => {
      writes.push({ config, cas });
      return cas === undefined || cas === 7;
    },
  };
}

/** operator:read for the token "reader", operator:write for "writer", nothing for anyone else. */
const readerOnly: Authorizer = {
  authorize: (token, _ns, type, _name, access) =>
    type === "operator" && (token === "writer" || (token === "reader" && access === "read"))
      ? "allow"
      : "deny",
};

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

async function start(health: () => AutopilotHealthView): Promise<string> {
  const app = createApi({ backend: new LocalBackend(), nodeName: "n1", datacenter: "dc1", config: {} });
  app.route("/v1/operator", operatorRoutes(operator(health), readerOnly));
  const http = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  closers.push(() => http.close());
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

const asReader = { headers: { "X-Consul-Token": "reader" } };

describe("/v1/operator/autopilot", () => {
  it("health answers Consul's shape, 200 while every server is healthy and 429 otherwise", async () => {
    let healthy = true;
    const url = await start(() => ({
      Healthy: healthy,
      FailureTolerance: healthy ? 1 : 0,
      Servers: [server("1", true), server("2", true), server("3", healthy)],
    }));
    const ok = await fetch(`${url}/v1/operator/autopilot/health`, asReader);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toContain("application/json");
    const body = (await ok.json()) as AutopilotHealthView;
    expect(body).toMatchObject({ Healthy: true, FailureTolerance: 1 });
    expect(Object.keys(body.Servers[0] ?? {})).toEqual([
      "ID",
      "Name",
      "Address",
      "SerfStatus",
      "Version",
      "Leader",
      "LastContact",
      "LastTerm",
      "LastIndex",
      "Healthy",
      "Voter",
      "StableSince",
    ]);

    healthy = false;
    const sick = await fetch(`${url}/v1/operator/autopilot/health`, asReader);
    expect(sick.status).toBe(429);
    expect(((await sick.json()) as AutopilotHealthView).Servers[2]?.SerfStatus).toBe("failed");
  });

  it("state keys the same observations by server ID, with each server's Raft role", async () => {
    const url = await start(() => ({
      Healthy: false,
      FailureTolerance: 0,
      Servers: [server("1", true), { ...server("2", true), Voter: false }, server("3", false)],
    }));
    const res = await fetch(`${url}/v1/operator/autopilot/state`, asReader);
    expect(res.status).toBe(200);
    const state = (await res.json()) as {
      Leader: string;
      Voters: string[];
      Servers: Record<string, { Status: string; NodeStatus: string; Healthy: boolean }>;
    };
    expect(state).toMatchObject({ Healthy: false, FailureTolerance: 0, Leader: "1", Voters: ["1", "3"] });
    expect(state.Servers["2"]).toMatchObject({ Status: "non-voter", NodeStatus: "alive", Healthy: true });
    expect(state.Servers["3"]).toMatchObject({ Status: "voter", NodeStatus: "failed", Healthy: false });
  });

  it("configuration reads the settings with durations as Go strings", async () => {
    const url = await start(() => ({ Healthy: true, FailureTolerance: 0, Servers: [] }));
    const res = await fetch(`${url}/v1/operator/autopilot/configuration`, asReader);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      CleanupDeadServers: true,
      LastContactThreshold: "200ms",
      MaxTrailingLogs: 250,
      MinQuorum: 0,
      ServerStabilizationTime: "10s",
    });
  });

  it("configuration PUT replaces it whole (durations as strings or nanoseconds), with check-and-set", async () => {
    const url = await start(() => ({ Healthy: true, FailureTolerance: 0, Servers: [] }));
    const put = (body: unknown, query = "", token = "writer") =>
      fetch(`${url}/v1/operator/autopilot/configuration${query}`, {
        method: "PUT",
        body: JSON.stringify(body),
        headers: { "X-Consul-Token": token },
      });
    writes.length = 0;
    const plain = await put({ cleanupdeadservers: true, LastContactThreshold: "1s", MinQuorum: 3 });
    expect(plain.status).toBe(200);
    expect(await plain.json()).toBe(true);
    expect(writes[0]).toEqual({
      config: {
        CleanupDeadServers: true,
        LastContactThresholdNs: 1_000_000_000,
        MaxTrailingLogs: 0,
        MinQuorum: 3,
        ServerStabilizationTimeNs: 0,
        RedundancyZoneTag: "",
        DisableUpgradeMigration: false,
        UpgradeVersionTag: "",
      },
      cas: undefined,
    });
    expect(await (await put({ ServerStabilizationTime: 5_000_000_000 }, "?cas=7")).json()).toBe(true);
    expect(writes[1]?.config.ServerStabilizationTimeNs).toBe(5_000_000_000);
    expect(await (await put({}, "?cas=6")).json()).toBe(false);

    const badCas = await put({}, "?cas=x");
    expect(badCas.status).toBe(400);
    expect(await badCas.text()).toContain("Error parsing cas value");
    const badBody = await put({ MaxTrailingLogs: "many" });
    expect(badBody.status).toBe(400);
    expect((await put({}, "", "reader")).status).toBe(403);
    expect(writes).toHaveLength(3);
  });

  it("needs operator:read", async () => {
    const url = await start(() => ({ Healthy: true, FailureTolerance: 0, Servers: [] }));
    expect((await fetch(`${url}/v1/operator/autopilot/health`)).status).toBe(403);
    expect((await fetch(`${url}/v1/operator/autopilot/configuration`)).status).toBe(403);
    expect((await fetch(`${url}/v1/operator/autopilot/state`)).status).toBe(403);
  });
});
