// gRPC, H2PING and UDP checks against real servers started here: a grpc.health.v1 server, HTTP/2 servers
// with and without TLS, and UDP sockets.
import dgram from "node:dgram";
import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestAgent, type TestAgent } from "./harness.js";
import { hasOpenssl, type SelfSigned, selfSigned } from "./tls-fixture.js";

let agent: TestAgent;
beforeAll(async () => {
  agent = await startTestAgent();
});
afterAll(() => agent.close());

interface AgentCheck {
  Status: string;
  Output: string;
  Type: string;
  ServiceID: string;
}
const checkOf = async (id: string) => (await agent.json<Record<string, AgentCheck>>("/v1/agent/checks"))[id];
/**
 * Waits until the check has run and reported `status`. A new check starts critical with no output, as in
 * Consul, so "critical" alone could be the state before its first run.
 */
async function waitFor(id: string, status: string, what = `${id} ${status}`): Promise<AgentCheck> {
  let seen: AgentCheck | undefined;
  await eventually(
    async () => {
      seen = await checkOf(id);
      return seen?.Status === status && seen.Output !== "";
    },
    10_000,
    what,
  );
  return seen as AgentCheck;
}

async function register(body: unknown): Promise<void> {
  const res = await agent.req("PUT", "/v1/agent/check/register", body);
  expect(res.status, await res.clone().text()).toBe(200);
}

const tls = hasOpenssl() ? selfSigned() : undefined;

describe("gRPC checks against a real grpc.health.v1 server", () => {
  let server: Server;
  let health: HealthImplementation;
  let target: string;

  beforeAll(async () => {
    health = new HealthImplementation({ "": "SERVING", api: "SERVING" });
    server = new Server();
    health.addToServer(server);
    target = `127.0.0.1:${await bind(server, ServerCredentials.createInsecure())}`;
  });
  afterAll(() => server.forceShutdown());

  it("passes on SERVING, is critical on NOT_SERVING and for a service the server does not know", async () => {
    await register({ Name: "grpc-all", GRPC: target, Interval: "50ms", Timeout: "2s" });
    await register({ Name: "grpc-api", GRPC: `${target}/api`, Interval: "50ms" });
    await register({ Name: "grpc-unknown", GRPC: `${target}/nope`, Interval: "50ms", Status: "passing" });
    const all = await waitFor("grpc-all", "passing");
    expect(all).toMatchObject({ Type: "grpc", Output: `gRPC check ${target}: success` });
    expect((await waitFor("grpc-api", "passing")).Output).toBe(`gRPC check ${target}/api: success`);
    const unknown = await waitFor("grpc-unknown", "critical");
    expect(unknown.Output).toMatch(/^rpc error: code = NotFound desc = /);

    health.setStatus("api", "NOT_SERVING");
    const down = await waitFor("grpc-api", "critical");
    expect(down.Output).toBe(`gRPC ${target}/api serving status: NOT_SERVING`);
    expect((await checkOf("grpc-all"))?.Status).toBe("passing");
    health.setStatus("api", "SERVING");
    await waitFor("grpc-api", "passing", "grpc-api back");

    // The catalog gets the check with its type and definition.
    const [record] = await agent.json<{ Type: string; Definition: Record<string, unknown> }[]>(
      `/v1/health/node/node-a?filter=${encodeURIComponent('CheckID == "grpc-api"')}`,
    );
    expect(record).toMatchObject({ Type: "grpc", Definition: { GRPC: `${target}/api`, Interval: "50ms" } });
    for (const id of ["grpc-all", "grpc-api", "grpc-unknown"]) {
      await agent.req("PUT", `/v1/agent/check/deregister/${id}`);
    }
  });

  it("is critical when nothing listens, with grpc's reason", async () => {
    const gone = new Server();
    const port = await bind(gone, ServerCredentials.createInsecure());
    gone.forceShutdown();
    await register({ Name: "grpc-gone", GRPC: `127.0.0.1:${port}`, Interval: "50ms", Status: "passing" });
    const check = await waitFor("grpc-gone", "critical");
    expect(check.Output).toMatch(/^rpc error: code = Unavailable desc = /);
    await agent.req("PUT", "/v1/agent/check/deregister/grpc-gone");
  });

  it("turns warning after failures_before_warning and critical after failures_before_critical", async () => {
    health.setStatus("slow", "SERVING");
    await register({
      Name: "grpc-thresholds",
      GRPC: `${target}/slow`,
      Interval: "50ms",
      failures_before_warning: 1,
      failures_before_critical: 1000,
    });
    await waitFor("grpc-thresholds", "passing");
    health.setStatus("slow", "NOT_SERVING");
    const warned = await waitFor("grpc-thresholds", "warning");
    expect(warned.Output).toBe(`gRPC ${target}/slow serving status: NOT_SERVING`);
    await agent.req("PUT", "/v1/agent/check/deregister/grpc-thresholds");
  });

  it.skipIf(tls === undefined)(
    "speaks TLS with GRPCUseTLS; TLSSkipVerify accepts a self-signed server",
    async () => {
      const { key, cert } = tls as SelfSigned;
      const secure = new Server();
      new HealthImplementation({ "": "SERVING" }).addToServer(secure);
      const credentials = ServerCredentials.createSsl(null, [{ private_key: key, cert_chain: cert }], false);
      const secureTarget = `127.0.0.1:${await bind(secure, credentials)}`;
      try {
        await register({
          Name: "grpc-tls-skip",
          GRPC: secureTarget,
          GRPCUseTLS: true,
          TLSSkipVerify: true,
          Interval: "50ms",
        });
        await register({ Name: "grpc-tls-verify", GRPC: secureTarget, GRPCUseTLS: true, Interval: "50ms" });
        await register({
          Name: "grpc-plain-to-tls",
          GRPC: secureTarget,
          Interval: "50ms",
          Status: "passing",
        });
        await waitFor("grpc-tls-skip", "passing");
        expect((await waitFor("grpc-tls-verify", "critical")).Output).toMatch(
          /^rpc error: code = Unavailable/,
        );
        await waitFor("grpc-plain-to-tls", "critical");
      } finally {
        for (const id of ["grpc-tls-skip", "grpc-tls-verify", "grpc-plain-to-tls"]) {
          await agent.req("PUT", `/v1/agent/check/deregister/${id}`);
        }
        secure.forceShutdown();
      }
    },
  );
});

describe("H2PING checks against real HTTP/2 servers", () => {
  it("passes while a cleartext HTTP/2 server answers PINGs (H2PingUseTLS false), critical when it stops", async () => {
    const server = http2.createServer();
    const port = await listen(server);
    const target = `127.0.0.1:${port}`;
    await register({ Name: "h2c", H2PING: target, H2PingUseTLS: false, Interval: "50ms", Timeout: "2s" });
    const passing = await waitFor("h2c", "passing");
    expect(passing).toMatchObject({ Type: "h2ping", Output: "HTTP2 ping was successful" });
    await closeServer(server);
    const down = await waitFor("h2c", "critical");
    expect(down.Output).toMatch(new RegExp(`^Failed to dial to ${target}: `));
    await agent.req("PUT", "/v1/agent/check/deregister/h2c");
  });

  it("is critical against a server that speaks only HTTP/1.1", async () => {
    const server = http.createServer((_req, res) => res.end("hi"));
    const port = await listen(server);
    await register({
      Name: "h2-on-h1",
      H2PING: `127.0.0.1:${port}`,
      H2PingUseTLS: false,
      Interval: "50ms",
      Timeout: "1s",
      Status: "passing",
    });
    expect((await waitFor("h2-on-h1", "critical")).Output).toMatch(/^(HTTP2 ping failed|Failed to dial to)/);
    await agent.req("PUT", "/v1/agent/check/deregister/h2-on-h1");
    await closeServer(server);
  });

  it.skipIf(tls === undefined)(
    "uses TLS by default: passing with TLSSkipVerify, critical verifying a self-signed certificate",
    async () => {
      const { key, cert } = tls as SelfSigned;
      const server = http2.createSecureServer({ key, cert });
      const port = await listen(server);
      const target = `127.0.0.1:${port}`;
      await register({ Name: "h2-skip", H2PING: target, TLSSkipVerify: true, Interval: "50ms" });
      await register({ Name: "h2-verify", H2PING: target, Interval: "50ms", Status: "passing" });
      await waitFor("h2-skip", "passing");
      const verify = await waitFor("h2-verify", "critical");
      expect(verify.Output).toMatch(new RegExp(`^Failed to dial to ${target}: .*self[- ]signed`));
      const [record] = await agent.json<{ Definition: Record<string, unknown> }[]>(
        `/v1/health/node/node-a?filter=${encodeURIComponent('CheckID == "h2-skip"')}`,
      );
      expect(record?.Definition).toMatchObject({ H2PING: target, H2PingUseTLS: true, TLSSkipVerify: true });
      for (const id of ["h2-skip", "h2-verify"]) await agent.req("PUT", `/v1/agent/check/deregister/${id}`);
      await closeServer(server);
    },
  );
});

describe("UDP checks against real sockets", () => {
  it("passes when the service replies, and when it stays silent for the whole timeout", async () => {
    const echo = dgram.createSocket("udp4");
    echo.on("message", (_msg, from) => echo.send("pong", from.port, from.address));
    const silent = dgram.createSocket("udp4");
    const echoPort = await bindUdp(echo);
    const silentPort = await bindUdp(silent);
    try {
      await register({ Name: "udp-echo", UDP: `127.0.0.1:${echoPort}`, Interval: "50ms", Timeout: "5s" });
      await register({
        Name: "udp-silent",
        UDP: `127.0.0.1:${silentPort}`,
        Interval: "50ms",
        Timeout: "200ms",
      });
      const replied = await waitFor("udp-echo", "passing");
      expect(replied).toMatchObject({ Type: "udp", Output: `UDP connect 127.0.0.1:${echoPort}: Success` });
      expect((await waitFor("udp-silent", "passing")).Output).toBe(
        `UDP connect 127.0.0.1:${silentPort}: Success`,
      );
    } finally {
      for (const id of ["udp-echo", "udp-silent"]) await agent.req("PUT", `/v1/agent/check/deregister/${id}`);
      echo.close();
      silent.close();
    }
  });

  it("is critical when the port is closed (the ICMP port unreachable comes back as an error)", async () => {
    const socket = dgram.createSocket("udp4");
    const port = await bindUdp(socket);
    socket.close();
    await register({
      Name: "udp-closed",
      UDP: `127.0.0.1:${port}`,
      Interval: "50ms",
      Timeout: "2s",
      Status: "passing",
    });
    const closed = await waitFor("udp-closed", "critical");
    expect(closed.Output).toMatch(
      new RegExp(`^read udp 127\\.0\\.0\\.1:\\d+->127\\.0\\.0\\.1:${port}: read: connection refused$`),
    );
    await agent.req("PUT", "/v1/agent/check/deregister/udp-closed");
  });
});

describe("the new kinds in service definitions", () => {
  it("run from /v1/agent/service/register (Check and Checks) and from configuration files", async () => {
    const health = new HealthImplementation({ "": "SERVING" });
    const server = new Server();
    health.addToServer(server);
    const target = `127.0.0.1:${await bind(server, ServerCredentials.createInsecure())}`;
    const udp = dgram.createSocket("udp4");
    const udpPort = await bindUdp(udp);
    const configured = await startTestAgent({
      config: {
        services: [
          {
            name: "configured",
            port: 1,
            checks: [
              { grpc: target, interval: "50ms" },
              { udp: `127.0.0.1:${udpPort}`, interval: "50ms", timeout: "100ms" },
            ],
          },
        ],
        checks: [{ name: "node-grpc", grpc: target, grpc_use_tls: false, interval: "50ms" }],
      },
    });
    try {
      const res = await agent.req("PUT", "/v1/agent/service/register", {
        Name: "registered",
        Check: { GRPC: target, Interval: "50ms" },
      });
      expect(res.status).toBe(200);
      const multi = await agent.req("PUT", "/v1/agent/service/register", {
        Name: "multi",
        Checks: [
          { GRPC: target, Interval: "50ms" },
          { UDP: `127.0.0.1:${udpPort}`, Interval: "50ms", Timeout: "100ms" },
        ],
      });
      expect(multi.status).toBe(200);
      await waitFor("service:registered", "passing");
      await waitFor("service:multi:1", "passing");
      expect((await waitFor("service:multi:2", "passing")).Type).toBe("udp");
      type Checks = Record<string, AgentCheck>;
      await eventually(
        async () => {
          const checks = await configured.json<Checks>("/v1/agent/checks");
          return (
            checks["service:configured:1"]?.Status === "passing" &&
            checks["service:configured:2"]?.Status === "passing" &&
            checks["node-grpc"]?.Status === "passing"
          );
        },
        10_000,
        "configured checks passing",
      );
      const checks = await configured.json<Checks>("/v1/agent/checks");
      expect(checks["service:configured:1"]?.Type).toBe("grpc");
      expect(checks["service:configured:2"]?.Type).toBe("udp");
    } finally {
      await agent.req("PUT", "/v1/agent/service/deregister/registered");
      await agent.req("PUT", "/v1/agent/service/deregister/multi");
      await configured.close();
      server.forceShutdown();
      udp.close();
    }
  });

  it("refuses invalid definitions with 400 naming the field, storing nothing", async () => {
    const cases: [string, unknown, RegExp][] = [
      [
        "/v1/agent/check/register",
        { Name: "both", GRPC: "127.0.0.1:1", HTTP: "http://127.0.0.1/", Interval: "1s" },
        /^Invalid check: Only one of .* got HTTP and GRPC$/,
      ],
      ["/v1/agent/check/register", { Name: "no-interval", UDP: "127.0.0.1:53" }, /Interval must be > 0/],
      [
        "/v1/agent/service/register",
        { Name: "bad-h2", Checks: [{ H2PING: "nowhere", Interval: "1s" }] },
        /^Invalid check: H2PING must be host:port/,
      ],
      [
        "/v1/agent/service/register",
        { Name: "bad-alias", Check: { AliasService: "x", TTL: "10s" } },
        /^Invalid check: TTL must be not be set for Alias checks$/,
      ],
    ];
    for (const [path, body, reason] of cases) {
      const res = await agent.req("PUT", path, body);
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(reason);
    }
    const checks = await agent.json<Record<string, unknown>>("/v1/agent/checks");
    expect(Object.keys(checks)).not.toContain("both");
    expect(Object.keys(checks)).not.toContain("no-interval");
    const services = await agent.json<Record<string, unknown>>("/v1/agent/services");
    expect(Object.keys(services)).not.toContain("bad-h2");
    expect(Object.keys(services)).not.toContain("bad-alias");
  });
});

function bind(server: Server, credentials: ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", credentials, (err, port) => (err ? reject(err) : resolve(port))),
  );
}

function listen(server: http.Server | http2.Http2Server | http2.Http2SecureServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: http.Server | http2.Http2Server | http2.Http2SecureServer): Promise<void> {
  if ("closeAllConnections" in server) server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function bindUdp(socket: dgram.Socket): Promise<number> {
  return new Promise((resolve) => socket.bind(0, "127.0.0.1", () => resolve(socket.address().port)));
}
