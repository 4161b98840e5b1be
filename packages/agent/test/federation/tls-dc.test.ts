// `?dc=` forwarding between datacenters whose servers speak mutual TLS with verify_server_hostname: a dc1
// server dialing dc2 must expect server.dc2.consul in the remote certificate, not its own datacenter's name.
import { writeFileSync } from "node:fs";
import { generateCA, generateCert, type PemPair } from "@cairn/tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentScratch, type Federation, startFederation } from "../../../../scripts/lib/index.js";
import { tlsHcl } from "../../../../scripts/lib/tls-certs.js";
import { call, ok } from "./harness.js";

const scratch = new AgentScratch();
let fed: Federation;

function write(name: string, pair: PemPair): { cert: string; key: string } {
  const cert = scratch.path(`${name}.pem`);
  const key = scratch.path(`${name}-key.pem`);
  writeFileSync(cert, pair.cert);
  writeFileSync(key, pair.key, { mode: 0o600 });
  return { cert, key };
}

beforeAll(async () => {
  // One CA for the federation, as Consul requires; each datacenter's servers hold their own name.
  const ca = await generateCA();
  const caFile = scratch.path("consul-agent-ca.pem");
  writeFileSync(caFile, ca.cert);
  const certs = new Map<string, { cert: string; key: string }>();
  for (const dc of ["dc1", "dc2"]) {
    certs.set(dc, write(`${dc}-server`, await generateCert({ kind: "server", ca, datacenter: dc })));
  }
  fed = await startFederation(scratch.root, {
    datacenters: ["dc1", "dc2"],
    servers: 1,
    clients: false,
    flags: (dc) => ["-hcl", tlsHcl(caFile, certs.get(dc) as { cert: string; key: string })],
  });
}, 180_000);

afterAll(async () => {
  await fed?.stop();
  await scratch.dispose();
});

describe("dc forwarding over mutual TLS", { timeout: 60_000 }, () => {
  it("a write and a read through ?dc= reach the other datacenter, whose certificate names it", async () => {
    const dc1 = fed.dc("dc1").servers[0]!;
    const dc2 = fed.dc("dc2").servers[0]!;
    expect(await ok(dc1, "/v1/kv/over-tls?dc=dc2", "PUT", "secret")).toBe(true);
    expect((await call(dc2, "/v1/kv/over-tls?raw")).text).toBe("secret");
    const back = await call(dc2, "/v1/kv/over-tls?dc=dc1&raw");
    expect(back.status).toBe(404);
    expect((await call(dc1, "/v1/kv/over-tls?dc=dc2&raw")).text).toBe("secret");
  });
});
