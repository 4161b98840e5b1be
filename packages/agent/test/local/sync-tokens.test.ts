// Anti-entropy writes each entry with its own ACL token, as Consul's local agent does: a service (and the
// checks sharing its token) with the token it was registered with, any other check with its own, entries
// without one with the default token, node info and removals with the agent token. Tokens persist with
// the definitions, so a restart syncs with the same ones.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalCheck, LocalService } from "@cairn/api";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentCatalog, CatalogWrite } from "../../src/local/catalog.js";
import { planSync } from "../../src/local/sync-plan.js";
import { eventually, NODE, startTestAgent, type TestAgent } from "./harness.js";

const agents: TestAgent[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const service = (id: string): LocalService => ({
  ID: id,
  Service: id,
  Tags: [],
  Address: "",
  TaggedAddresses: {},
  Meta: {},
  Port: 1,
  Kind: "",
  Proxy: null,
  Connect: null,
  EnableTagOverride: false,
  Weights: { Passing: 1, Warning: 1 },
  Namespace: "default",
});
const check = (id: string, serviceID = ""): LocalCheck => ({
  Node: NODE.name,
  CheckID: id,
  Name: id,
  Status: "critical",
  Notes: "",
  Output: "",
  ServiceID: serviceID,
  ServiceName: serviceID,
  ServiceTags: [],
  Type: "ttl",
  Definition: {},
  Namespace: "default",
});

describe("the sync plan's tokens", () => {
  it("a service with the checks sharing its token, other checks alone with theirs, the node and removals with the agent token", () => {
    const catalogNode = {
      ID: NODE.id,
      Node: NODE.name,
      Address: "10.9.9.9",
      Datacenter: "dc1",
      TaggedAddresses: {},
      Meta: {},
      CreateIndex: 1,
      ModifyIndex: 1,
    };
    const plan = planSync(
      {
        node: NODE,
        services: [service("a")],
        checks: [check("service:a", "a"), check("a-extra", "a"), check("disk")],
        tokens: {
          services: new Map([["a", "A"]]),
          checks: new Map([
            ["service:a", "A"],
            ["a-extra", "X"],
            ["disk", "D"],
          ]),
          agent: "AGENT",
        },
      },
      {
        node: catalogNode,
        services: [{ ...service("stray"), CreateIndex: 1, ModifyIndex: 1 } as never],
        checks: [{ ...check("stray-check"), CreateIndex: 1, ModifyIndex: 1 } as never],
      },
    );
    const summary = plan.map((op) => {
      if (op.kind !== "register") return [op.kind, op.token];
      const r = op.registration;
      const what = r.Service?.ID ?? r.Check?.CheckID ?? "node";
      return [what, op.token, (r.Checks ?? []).map((c) => c.CheckID), r.SkipNodeUpdate ?? false];
    });
    expect(summary).toEqual([
      ["node", "AGENT", [], false],
      ["deregister-service", "AGENT"],
      ["deregister-check", "AGENT"],
      ["a", "A", ["service:a"], true],
      ["a-extra", "X", [], true],
      ["disk", "D", [], true],
    ]);
  });
});

interface Write {
  what: string;
  token: string;
}

/** The catalog's writes as anti-entropy makes them: what each writes, with which token. */
function recording(writes: Write[]): (catalog: AgentCatalog) => AgentCatalog {
  return (catalog) => ({
    read: (node) => catalog.read(node),
    write: (write: CatalogWrite, token: string) => {
      writes.push({ what: describeWrite(write), token });
      return catalog.write(write, token);
    },
  });
}

function describeWrite(write: CatalogWrite): string {
  if (write.rpc === "Catalog.Deregister") return `-${write.body.ServiceID ?? write.body.CheckID ?? "node"}`;
  const r = write.body;
  const riding = (r.Checks ?? []).map((c) => `+${c.CheckID}`);
  return [r.Service?.ID ?? r.Check?.CheckID ?? "node", ...riding].join(" ");
}

const tokens = { get: (name: "agent" | "default") => (name === "agent" ? "agent-secret" : "default-secret") };

describe("a local agent's anti-entropy tokens", () => {
  it("syncs each entry with its token, from the API and the configuration, and again after a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cairn-sync-tokens-"));
    dirs.push(dataDir);
    const config = { services: [{ name: "cfg", port: 81, token: "cfg-secret" }], checks: [] };
    const writes: Write[] = [];
    const first = await startTestAgent({ dataDir, config, tokens, wrapCatalog: recording(writes) });
    agents.push(first);
    const put = async (path: string, body?: unknown) => {
      const res = await first.req("PUT", path, body);
      expect(res.status, await res.text()).toBe(200);
    };
    await put("/v1/agent/service/register?token=web-secret", {
      Name: "web",
      Port: 80,
      Check: { TTL: "30s" },
    });
    await put("/v1/agent/check/register?token=other-secret", {
      Name: "web-extra",
      ServiceID: "web",
      TTL: "30s",
    });
    await put("/v1/agent/check/register", { Name: "disk", TTL: "30s" });
    await put("/v1/agent/maintenance?enable=true");
    await put("/v1/agent/service/maintenance/web?enable=true");
    await eventually(() => writes.some((w) => w.what.startsWith("_service_maintenance")), 5000, "writes");
    const tokenOf = (what: string) => writes.find((w) => w.what === what)?.token;
    expect(tokenOf("node")).toBe("agent-secret");
    expect(tokenOf("cfg")).toBe("cfg-secret");
    expect(tokenOf("web +service:web")).toBe("web-secret");
    expect(tokenOf("web-extra")).toBe("other-secret");
    expect(tokenOf("disk")).toBe("default-secret");
    expect(tokenOf("_node_maintenance")).toBe("agent-secret");
    expect(tokenOf("_service_maintenance:web")).toBe("web-secret");

    await put("/v1/agent/service/deregister/web");
    await eventually(() => writes.some((w) => w.what === "-web"), 5000, "the removal");
    // The service's removal goes with the agent token (node:write covers it; the service's may be gone).
    expect(tokenOf("-web")).toBe("agent-secret");
    await put("/v1/agent/service/register?token=kept-secret", { Name: "kept", Check: { TTL: "30s" } });
    await first.close();
    agents.splice(agents.indexOf(first), 1);

    // A fresh catalog: the restarted agent writes everything again, with the tokens kept on disk.
    writes.length = 0;
    const second = await startTestAgent({ dataDir, config, tokens, wrapCatalog: recording(writes) });
    agents.push(second);
    await eventually(() => writes.some((w) => w.what.startsWith("kept")), 5000, "the restored sync");
    expect(tokenOf("kept +service:kept")).toBe("kept-secret");
    expect(tokenOf("disk")).toBe("default-secret");
    expect(tokenOf("cfg")).toBe("cfg-secret");
  });

  it("a write its token may not make is skipped and the rest still sync", async () => {
    const writes: Write[] = [];
    const refusing = (catalog: AgentCatalog): AgentCatalog => {
      const inner = recording(writes)(catalog);
      return {
        read: inner.read,
        write: async (write, token) => {
          if (token === "denied") throw new Error("Permission denied");
          return inner.write(write, token);
        },
      };
    };
    const agent = await startTestAgent({ tokens, wrapCatalog: refusing });
    agents.push(agent);
    await agent.req("PUT", "/v1/agent/service/register?token=denied", { Name: "no" });
    await agent.req("PUT", "/v1/agent/service/register?token=fine", { Name: "yes" });
    await eventually(() => writes.some((w) => w.what === "yes"), 5000, "the allowed service");
    expect(Object.keys(await agent.json<Record<string, unknown>>("/v1/catalog/services")).sort()).toEqual([
      "yes",
    ]);
    expect(writes.some((w) => w.what === "no")).toBe(false);
  });
});
