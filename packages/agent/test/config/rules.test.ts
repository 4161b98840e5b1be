import { describe, expect, it } from "vitest";
import { ConfigError, loadAgentConfig } from "../../src/index.js";

const env = { HOSTNAME: "test-host" };
const load = (argv: string[]) => loadAgentConfig(argv, env);
const DATA = "-data-dir=/var/lib/cairn";

describe("defaults", () => {
  it("are Consul's for a client agent", () => {
    const { config, warnings } = load([]);
    expect(warnings).toEqual([]);
    expect(config).toMatchObject({
      dev: false,
      server: false,
      bootstrap: false,
      bootstrapExpect: 0,
      nodeName: "test-host",
      nodeId: undefined,
      datacenter: "dc1",
      primaryDatacenter: "dc1",
      dataDir: undefined,
      bindAddr: "0.0.0.0",
      advertiseAddr: undefined,
      clientAddr: "127.0.0.1",
      ports: { http: 8500, https: -1, grpc: -1, dns: 8600, server: 8300, serfLan: 8301, serfWan: 8302 },
      addresses: { http: "127.0.0.1", https: "127.0.0.1", dns: "127.0.0.1", grpc: "127.0.0.1" },
      retryJoin: [],
      retryIntervalMs: 30_000,
      logLevel: "info",
      logJson: false,
      sessionTtlMinMs: 10_000,
      acl: {
        enabled: false,
        defaultPolicy: "allow",
        downPolicy: "extend-cache",
        tokenTtlMs: 30_000,
        tokens: { initialManagement: undefined, agent: undefined },
      },
      ui: { enabled: false, contentPath: "/ui/" },
      performance: { raftMultiplier: 3 },
      raftProtocol: 3,
      leaveOnTerminate: true,
      skipLeaveOnInterrupt: false,
      limits: {
        httpMaxConnsPerClient: 200,
        rpcRate: undefined,
        rpcMaxBurst: 1000,
        kvMaxValueSize: 524_288,
        txnMaxReqLen: 524_288,
      },
      autopilot: {
        cleanupDeadServers: true,
        lastContactThresholdMs: 200,
        maxTrailingLogs: 250,
        minQuorum: 0,
        serverStabilizationTimeMs: 10_000,
      },
      domain: "consul.",
      dnsConfig: { allowStale: true, udpAnswerLimit: 3 },
      clockOffsetMs: 0,
      configFiles: [],
    });
  });

  it("flip the leave behaviour for servers, as Consul's do", () => {
    const { config } = load(["-server", DATA, "-bootstrap-expect=3"]);
    expect(config).toMatchObject({ leaveOnTerminate: false, skipLeaveOnInterrupt: true });
  });

  it("take the node name from the hostname", () => {
    expect(loadAgentConfig([], { HOSTNAME: "box-7" }).config.nodeName).toBe("box-7");
    expect(loadAgentConfig([], {}).config.nodeName).not.toBe("");
  });

  it("produce a deeply frozen configuration", () => {
    const { config } = load(["-retry-join=a"]);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.ports)).toBe(true);
    expect(Object.isFrozen(config.retryJoin)).toBe(true);
    expect(Object.isFrozen(config.acl.tokens)).toBe(true);
  });
});

describe("-dev", () => {
  it("is one in-memory server on 127.0.0.1:8500 with the UI, debug logging and ACLs off", () => {
    const { config, warnings } = load(["-dev"]);
    expect(warnings).toEqual([]);
    expect(config).toMatchObject({
      dev: true,
      server: true,
      bootstrap: true,
      bootstrapExpect: 0,
      dataDir: undefined,
      bindAddr: "127.0.0.1",
      clientAddr: "127.0.0.1",
      addresses: { http: "127.0.0.1" },
      ports: { http: 8500 },
      ui: { enabled: true },
      logLevel: "debug",
      enableDebug: true,
      performance: { raftMultiplier: 1 },
      acl: { enabled: false },
      datacenter: "dc1",
    });
  });

  it("still lets flags and files change what dev mode sets", () => {
    const { config } = load(["-dev", "-log-level=warn", "-client=0.0.0.0", "-http-port=18500", "-ui=false"]);
    expect(config).toMatchObject({
      logLevel: "warn",
      clientAddr: "0.0.0.0",
      ports: { http: 18500 },
      ui: { enabled: false },
    });
  });

  it("refuses -bootstrap-expect", () => {
    expect(() => load(["-dev", "-bootstrap-expect=3"])).toThrow(
      new ConfigError("bootstrap_expect: 'bootstrap_expect > 0' is not allowed in dev mode"),
    );
  });

  it("passes -clock-offset through", () => {
    expect(load(["-dev", "-clock-offset=1m30s"]).config.clockOffsetMs).toBe(90_000);
  });
});

describe("Consul's rules", () => {
  it.each([
    [
      ["-server", DATA, "-bootstrap", "-bootstrap-expect=3"],
      "bootstrap_expect: 'bootstrap_expect > 0' and 'bootstrap = true' are mutually exclusive (-bootstrap-expect and -bootstrap)",
    ],
    [[DATA, "-bootstrap-expect=3"], "bootstrap_expect: 'bootstrap_expect > 0' requires 'server = true'"],
    [[DATA, "-bootstrap"], "bootstrap: 'bootstrap = true' requires 'server = true'"],
    [["-server", "-bootstrap-expect=3"], "data_dir: a server needs a data directory (data_dir or -data-dir)"],
    [["-server", "-data-dir="], "data_dir: a server needs a data directory (data_dir or -data-dir)"],
    [["-datacenter=dc 1"], `datacenter: invalid name "dc 1"; use only letters, digits, '-' and '_'`],
    [["-datacenter="], "datacenter: cannot be empty"],
    [
      ["-hcl", 'primary_datacenter = "a.b"'],
      `primary_datacenter: invalid name "a.b"; use only letters, digits, '-' and '_'`,
    ],
    [["-node="], "node_name: cannot be empty (set node_name or -node)"],
    [["-node-id=not-a-uuid"], `node_id: expected a UUID, got "not-a-uuid"`],
    [["-encrypt=c2hvcnQ="], "encrypt: expected a base64-encoded key of 16, 24 or 32 bytes"],
    [["-encrypt=not base64!"], "encrypt: expected a base64-encoded key of 16, 24 or 32 bytes"],
    [["-server-port=-1"], "ports.server: expected a port number from 1 to 65535, got -1"],
    [["-serf-lan-port=0"], "ports.serf_lan: expected a port number from 1 to 65535, got 0"],
  ])("%j fails: %s", (argv, message) => {
    expect(() => load(argv)).toThrow(new ConfigError(message));
  });

  it("lowercases the datacenter and the node ID as Consul does", () => {
    const { config } = load(["-datacenter=EU_West-1", "-node-id=ADF4238A-882B-9DDC-4A9D-5B6758E4159E"]);
    expect(config.datacenter).toBe("eu_west-1");
    expect(config.primaryDatacenter).toBe("eu_west-1");
    expect(config.nodeId).toBe("adf4238a-882b-9ddc-4a9d-5b6758e4159e");
  });

  it("treats bootstrap_expect = 1 as bootstrap mode, with Consul's warning", () => {
    const { config, warnings } = load(["-server", DATA, "-bootstrap-expect=1"]);
    expect(config).toMatchObject({ bootstrap: true, bootstrapExpect: 0 });
    expect(warnings).toEqual([
      "BootstrapExpect is set to 1; this is the same as Bootstrap mode.",
      "bootstrap = true: do not enable unless necessary",
    ]);
  });

  it("warns about two servers", () => {
    expect(load(["-server", DATA, "-bootstrap-expect=2"]).warnings).toEqual([
      "bootstrap_expect = 2: A cluster with 2 servers will provide no failure tolerance. See https://www.consul.io/docs/internals/consensus.html#deployment-table",
      "bootstrap_expect > 0: expecting 2 servers",
    ]);
  });

  it("warns about an even number of servers", () => {
    expect(load(["-server", DATA, "-bootstrap-expect=4"]).warnings).toEqual([
      "bootstrap_expect is even number: A cluster with an even number of servers does not achieve optimum fault tolerance. See https://www.consul.io/docs/internals/consensus.html#deployment-table",
      "bootstrap_expect > 0: expecting 4 servers",
    ]);
    expect(load(["-server", DATA, "-bootstrap-expect=5"]).warnings).toEqual([
      "bootstrap_expect > 0: expecting 5 servers",
    ]);
  });

  it("warns about -bootstrap outside dev mode", () => {
    expect(load(["-server", DATA, "-bootstrap"]).warnings).toEqual([
      "bootstrap = true: do not enable unless necessary",
    ]);
  });

  it("warns when the node name is not a DNS label", () => {
    expect(load(["-node=web_1"]).warnings).toEqual([
      'Node name "web_1" will not be discoverable via DNS due to invalid characters. Valid characters include all alpha-numerics and dashes.',
    ]);
  });

  it("accepts a valid gossip key and a fully qualified domain", () => {
    const { config } = load(["-encrypt=pUqJrVyVRj5jsiYEkM/tFQYfWyJIv4s3XkvDwy7Cu5s=", "-domain=example"]);
    expect(config.encrypt).toBe("pUqJrVyVRj5jsiYEkM/tFQYfWyJIv4s3XkvDwy7Cu5s=");
    expect(config.domain).toBe("example.");
  });

  it("resolves per-interface addresses over client_addr", () => {
    const { config } = load(["-client=0.0.0.0", "-hcl", 'addresses { dns = "127.0.0.2" }']);
    expect(config.addresses).toEqual({
      http: "0.0.0.0",
      https: "0.0.0.0",
      dns: "127.0.0.2",
      grpc: "0.0.0.0",
    });
  });
});
