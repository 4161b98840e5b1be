import { describe, expect, it } from "vitest";
import { buildAgentConfig } from "../../src/config/index.js";
import { agentSelf } from "../../src/local/self.js";
import { NODE } from "./harness.js";

describe("/agent/self", () => {
  it("shows the configuration without ACL tokens, the gossip key or service tokens", () => {
    const { config } = buildAgentConfig(
      {
        node_name: NODE.name,
        server: true,
        data_dir: "/var/lib/cairn",
        encrypt: "pUqJrVyVRj5jsiYEkM/tFQYfWyJIv4s3XkvDwy7Cu5s=",
        acl: { enabled: true, tokens: { initial_management: "root-secret", agent: "agent-secret" } },
        services: [{ name: "web", token: "service-secret" }],
      },
      { dev: false, hostname: NODE.name, clockOffsetMs: 0, configFiles: [] },
    );
    const self = agentSelf({
      config,
      node: NODE,
      coordinate: undefined,
      services: 1,
      checks: [],
      view: undefined,
    });
    const text = JSON.stringify(self);
    for (const secret of ["root-secret", "agent-secret", "service-secret", "pUqJrVyVRj5jsiYEkM"]) {
      expect(text).not.toContain(secret);
    }
    expect(self.Config).toMatchObject({
      NodeName: NODE.name,
      NodeID: NODE.id,
      Datacenter: "dc1",
      Server: true,
    });
    // Consul's agent adds its network segment to the node meta (none configured here).
    expect(self.Meta).toEqual({ "consul-network-segment": "" });
    expect(self.DebugConfig).toMatchObject({
      NodeName: NODE.name,
      Datacenter: "dc1",
      ServerMode: true,
      ACLsEnabled: true,
      EncryptKey: "hidden",
      ACLInitialManagementToken: "hidden",
      ACLTokens: { ACLAgentToken: "hidden", ACLDefaultToken: "" },
      AdvertiseAddrLAN: NODE.address,
      SerfAdvertiseAddrLAN: `tcp://${NODE.address}:8301`,
      SessionTTLMin: "10s",
      Services: [{ name: "web", token: "hidden" }],
    });
    expect(self.Stats).toMatchObject({
      agent: { services: "1", checks: "0" },
      build: { version: "1.15.0" },
      runtime: { os: process.platform },
    });
    expect((self.Member as { Tags: Record<string, string> }).Tags).toMatchObject({
      role: "consul",
      wan_join_port: "8302",
    });
  });
});
