import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadAgentConfig } from "../../src/index.js";

const env = { HOSTNAME: "test-host" };
let root: string;
let counter = 0;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "cairn-config-"));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** Writes files (name → content) into a fresh directory and returns its path. */
function dir(files: Record<string, string>): string {
  const path = join(root, `d${++counter}`);
  mkdirSync(path);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(path, name), content);
  return path;
}

function file(name: string, content: string): string {
  return join(dir({ [name]: content }), name);
}

function loadError(argv: string[]): string {
  try {
    loadAgentConfig(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected loadAgentConfig to fail");
}

const REALISTIC_SERVER_HCL = `
# /etc/consul.d/server.hcl, as a Consul operator would write it
datacenter         = "DC-East"
primary_datacenter = "dc-east"
data_dir           = "/opt/consul"
node_name          = "consul-server-1"
server             = true
bootstrap_expect   = 3
bind_addr          = "10.0.1.10"
advertise_addr     = "10.0.1.10"
client_addr        = "0.0.0.0"
encrypt            = "pUqJrVyVRj5jsiYEkM/tFQYfWyJIv4s3XkvDwy7Cu5s="
retry_join         = ["10.0.1.11", "10.0.1.12"]
retry_interval     = "15s"
log_level          = "INFO"
leave_on_terminate = true
rejoin_after_leave = true
session_ttl_min    = "5s"
enable_local_script_checks = true

ui_config {
  enabled = true
}

ports {
  http  = 8500
  https = -1
  grpc  = 8502
  dns   = 8600
}

addresses {
  http = "0.0.0.0"
}

acl {
  enabled                  = true
  default_policy           = "deny"
  down_policy              = "extend-cache"
  enable_token_persistence = true
  tokens {
    initial_management = "b1gs33cr3t"
    agent              = "agent-token"
  }
}

performance {
  raft_multiplier = 1
}

raft_snapshot_threshold = 8192
raft_snapshot_interval  = "5s"
raft_trailing_logs      = 20000

telemetry {
  prometheus_retention_time = "24h"
  disable_hostname          = true
}

autopilot {
  cleanup_dead_servers      = true
  last_contact_threshold    = "200ms"
  max_trailing_logs         = 250
  server_stabilization_time = "10s"
}

limits {
  http_max_conns_per_client = 400
}

node_meta {
  rack = "r1"
}

connect {
  enabled = true
}

verify_incoming = false
verify_outgoing = true
ca_file         = "/etc/consul.d/ca.pem"

service {
  name = "web"
  port = 80
  tags = ["primary", "v1"]
  check {
    http     = "http://localhost:80/health"
    interval = "10s"
  }
}

service {
  name = "db"
  port = 5432
}

check {
  id       = "mem"
  name     = "Memory"
  args     = ["/usr/local/bin/check_mem.py"]
  interval = "30s"
}

dns_config {
  allow_stale = true
  max_stale   = "5s"
  service_ttl {
    "*" = "5s"
  }
}
recursors            = ["1.1.1.1"]
disable_update_check = true
`;

describe("retry_join_wan's own pace", () => {
  it("reads retry_interval_wan and retry_max_wan (and their flags), defaulting to 30 s and forever", () => {
    const hcl = file("wan.hcl", 'retry_interval = "1s"\nretry_interval_wan = "5s"\nretry_max_wan = 3\n');
    const { config } = loadAgentConfig(["-config-file", hcl], env);
    expect(config).toMatchObject({
      retryIntervalMs: 1000,
      retryIntervalWanMs: 5000,
      retryMaxWan: 3,
      retryMax: 0,
    });
    const flags = loadAgentConfig(["-retry-interval-wan", "2s", "-retry-max-wan", "4"], env).config;
    expect(flags).toMatchObject({ retryIntervalWanMs: 2000, retryMaxWan: 4 });
    expect(loadAgentConfig([], env).config).toMatchObject({ retryIntervalWanMs: 30_000, retryMaxWan: 0 });
  });
});

describe("a real Consul server configuration", () => {
  it("runs unchanged, with warnings for what Cairn does not implement", () => {
    const path = file("server.hcl", REALISTIC_SERVER_HCL);
    const { config, warnings } = loadAgentConfig(["-config-file", path], env);
    expect(config).toMatchObject({
      dev: false,
      server: true,
      bootstrap: false,
      bootstrapExpect: 3,
      datacenter: "dc-east",
      primaryDatacenter: "dc-east",
      dataDir: "/opt/consul",
      nodeName: "consul-server-1",
      bindAddr: "10.0.1.10",
      advertiseAddr: "10.0.1.10",
      clientAddr: "0.0.0.0",
      encrypt: "pUqJrVyVRj5jsiYEkM/tFQYfWyJIv4s3XkvDwy7Cu5s=",
      retryJoin: ["10.0.1.11", "10.0.1.12"],
      retryIntervalMs: 15_000,
      logLevel: "info",
      leaveOnTerminate: true,
      rejoinAfterLeave: true,
      sessionTtlMinMs: 5_000,
      enableLocalScriptChecks: true,
      ui: { enabled: true },
      ports: { http: 8500, https: -1, grpc: 8502, dns: 8600, server: 8300, serfLan: 8301, serfWan: 8302 },
      addresses: { http: "0.0.0.0", dns: "0.0.0.0" },
      acl: {
        enabled: true,
        defaultPolicy: "deny",
        downPolicy: "extend-cache",
        enableTokenPersistence: true,
        tokens: { initialManagement: "b1gs33cr3t", agent: "agent-token" },
      },
      performance: { raftMultiplier: 1 },
      raftSnapshotThreshold: 8192,
      raftSnapshotIntervalMs: 5000,
      raftTrailingLogs: 20_000,
      telemetry: { prometheusRetentionMs: 86_400_000, disableHostname: true },
      autopilot: {
        cleanupDeadServers: true,
        lastContactThresholdMs: 200,
        maxTrailingLogs: 250,
        serverStabilizationTimeMs: 10_000,
      },
      limits: { httpMaxConnsPerClient: 400, kvMaxValueSize: 524_288 },
      nodeMeta: { rack: "r1" },
      dnsConfig: { allowStale: true, maxStaleMs: 5_000, serviceTtlMs: { "*": 5_000 } },
      recursors: ["1.1.1.1"],
      disableUpdateCheck: true,
      configFiles: [path],
    });
    expect(config.services).toEqual([
      {
        name: "web",
        port: 80,
        tags: ["primary", "v1"],
        check: { http: "http://localhost:80/health", interval: "10s" },
      },
      { name: "db", port: 5432 },
    ]);
    expect(config.checks).toEqual([
      { id: "mem", name: "Memory", args: ["/usr/local/bin/check_mem.py"], interval: "30s" },
    ]);
    expect(warnings).toEqual([
      `config file ${path}: 'ca_file' is deprecated; use 'tls.defaults.ca_file' instead`,
      `config file ${path}: 'verify_incoming' is deprecated; use 'tls.defaults.verify_incoming' instead`,
      `config file ${path}: 'verify_outgoing' is deprecated; use 'tls.defaults.verify_outgoing' instead`,
      `config file ${path}: connect: not implemented by Cairn; ignored`,
      "bootstrap_expect > 0: expecting 3 servers",
    ]);
  });

  it("reads the same configuration written as JSON", () => {
    const json = {
      datacenter: "dc1",
      data_dir: "/opt/consul",
      server: true,
      bootstrap_expect: 3,
      retry_join: ["10.0.1.11"],
      ports: { http: 8500, dns: -1 },
      acl: { enabled: true, default_policy: "deny", tokens: { initial_management: "root" } },
      services: [{ name: "web", port: 80 }],
      service: { name: "db", port: 5432 },
      telemetry: { prometheus_retention_time: "1m" },
    };
    const path = file("server.json", JSON.stringify(json));
    const { config } = loadAgentConfig([`-config-file=${path}`], env);
    expect(config).toMatchObject({
      server: true,
      bootstrapExpect: 3,
      retryJoin: ["10.0.1.11"],
      ports: { http: 8500, dns: -1 },
      acl: { enabled: true, defaultPolicy: "deny", tokens: { initialManagement: "root" } },
      telemetry: { prometheusRetentionMs: 60_000 },
    });
    expect(config.services).toEqual([
      { name: "web", port: 80 },
      { name: "db", port: 5432 },
    ]);
  });
});

describe("null values", () => {
  it("treats a null as absent for every key, in JSON and in HCL's JSON form, as Consul's decoder does", () => {
    const json = file(
      "harness.json",
      JSON.stringify({
        node_name: "n1",
        datacenter: null,
        acl: { enabled: true, tokens: { agent: null, default: null } },
        ports: { dns: null, http: 18500 },
        retry_join: null,
        services: [{ name: "web", port: 80, tags: null }],
      }),
    );
    const { config, warnings } = loadAgentConfig(["-config-file", json], env);
    expect(warnings).toEqual([]);
    expect(config).toMatchObject({ nodeName: "n1", datacenter: "dc1", retryJoin: [] });
    expect(config.acl.enabled).toBe(true);
    expect(config.acl.tokens.agent).toBeUndefined();
    expect(config.ports.http).toBe(18500);
    expect(config.services[0]).not.toHaveProperty("tags");
    const hcl = file(
      "harness.hcl",
      '{"node_name": "n2", "acl": {"tokens": {"agent": null}}, "log_level": null}',
    );
    expect(loadAgentConfig(["-config-file", hcl], env).config).toMatchObject({
      nodeName: "n2",
      logLevel: "info",
    });
  });
});

describe("merging sources", () => {
  it("reads a -config-dir's *.json and *.hcl files in lexical order, skipping everything else", () => {
    const path = dir({
      "20-late.hcl": 'node_name = "late"\nretry_join = ["c"]',
      "10-base.json": JSON.stringify({ node_name: "base", retry_join: ["b"], log_level: "warn" }),
      "05-early.hcl": 'node_name = "early"\nretry_join = ["a"]\ndatacenter = "dc9"',
      "README.md": "not configuration",
      "backup.json.bak": "{ broken",
    });
    mkdirSync(join(path, "nested.json"));
    const { config, warnings } = loadAgentConfig(["-config-dir", path], env);
    expect(warnings).toEqual([
      `skipping file ${join(path, "README.md")}, extension must be .hcl or .json, or config format must be set`,
      `skipping file ${join(path, "backup.json.bak")}, extension must be .hcl or .json, or config format must be set`,
    ]);
    expect(config.nodeName).toBe("late");
    expect(config.retryJoin).toEqual(["a", "b", "c"]);
    expect(config.logLevel).toBe("warn");
    expect(config.datacenter).toBe("dc9");
    expect(config.configFiles).toEqual(
      ["05-early.hcl", "10-base.json", "20-late.hcl"].map((name) => join(path, name)),
    );
  });

  it("applies -config-file and -config-dir paths in the order given", () => {
    const a = file("a.hcl", 'node_name = "a"');
    const d = dir({ "x.json": '{"node_name": "from-dir"}' });
    const b = file("b.json", '{"log_level": "trace"}');
    expect(
      loadAgentConfig(["-config-file", a, "-config-dir", d, "-config-file", b], env).config,
    ).toMatchObject({
      nodeName: "from-dir",
      logLevel: "trace",
    });
    expect(loadAgentConfig(["-config-dir", d, "-config-file", a], env).config.nodeName).toBe("a");
  });

  it("lets flags override files, lists from flags come first, and -hcl fragments apply last (as Consul)", () => {
    const path = file(
      "c.hcl",
      'datacenter = "dc2"\nlog_level = "warn"\nretry_join = ["f1"]\nports { http = 1111 }',
    );
    const { config } = loadAgentConfig(
      [
        "-config-file",
        path,
        "-hcl",
        'log_level = "error"\nports { dns = 2222 }\nretry_join = ["h1"]',
        "-datacenter",
        "dc3",
        "-log-level=debug",
        "-retry-join",
        "flag1",
        "-http-port",
        "3333",
      ],
      env,
    );
    expect(config).toMatchObject({
      datacenter: "dc3",
      logLevel: "error",
      retryJoin: ["flag1", "f1", "h1"],
      ports: { http: 3333, dns: 2222 },
    });
  });

  it("merges objects key by key across files", () => {
    const path = dir({
      "a.hcl": 'acl { enabled = true\n tokens { agent = "a" } }\nnode_meta { x = "1" }',
      "b.json": JSON.stringify({
        acl: { default_policy: "deny", tokens: { default: "d" } },
        node_meta: { y: "2" },
      }),
    });
    const { config } = loadAgentConfig(["-config-dir", path], env);
    expect(config.acl).toMatchObject({
      enabled: true,
      defaultPolicy: "deny",
      tokens: { agent: "a", default: "d" },
    });
    expect(config.nodeMeta).toEqual({ x: "1", y: "2" });
  });

  it("merges a block repeated inside one HCL file", () => {
    const path = file("p.hcl", "ports { http = 1 }\nports { dns = 2 }");
    expect(loadAgentConfig(["-config-file", path], env).config.ports).toMatchObject({ http: 1, dns: 2 });
  });

  it("forces the format with -config-format, for named files and every file of a directory", () => {
    const path = file("agent.conf", 'node_name = "from-conf"');
    expect(loadAgentConfig(["-config-format=hcl", "-config-file", path], env).config.nodeName).toBe(
      "from-conf",
    );
    const d = dir({ "a.conf": '{"node_name": "a"}', "b.txt": '{"log_level": "warn"}' });
    expect(loadAgentConfig(["-config-format=json", "-config-dir", d], env).config).toMatchObject({
      nodeName: "a",
      logLevel: "warn",
    });
  });

  it("warns about and skips a named file of unknown format", () => {
    const yaml = file("a.yaml", "server: true");
    const { config, warnings } = loadAgentConfig(["-config-file", yaml], env);
    expect(config.server).toBe(false);
    expect(warnings).toEqual([
      `skipping file ${yaml}, extension must be .hcl or .json, or config format must be set`,
    ]);
  });

  it("gathers services and checks from every source, single blocks included", () => {
    const path = dir({
      "a.hcl": 'service { name = "a"\n  checks { ttl = "10s" } }\ncheck { id = "c1" }',
      "b.json": JSON.stringify({ services: [{ name: "b" }], checks: [{ id: "c2" }] }),
    });
    const { config } = loadAgentConfig(["-config-dir", path, "-hcl", 'services { name = "c" }'], env);
    expect(config.services).toEqual([{ name: "a", checks: [{ ttl: "10s" }] }, { name: "b" }, { name: "c" }]);
    expect(config.checks).toEqual([{ id: "c1" }, { id: "c2" }]);
  });

  it("treats an empty file as empty configuration", () => {
    const path = dir({ "empty.json": "", "blank.hcl": "\n  \n" });
    expect(loadAgentConfig(["-config-dir", path], env).config.nodeName).toBe("test-host");
  });

  it("decodes values weakly, as Consul does", () => {
    const path = file(
      "w.json",
      JSON.stringify({ bootstrap_expect: "3", server: "true", ports: { http: "8080" }, node_name: 42 }),
    );
    expect(loadAgentConfig(["-config-file", path, "-data-dir=/d"], env).config).toMatchObject({
      bootstrapExpect: 3,
      server: true,
      ports: { http: 8080 },
      nodeName: "42",
    });
  });
});

describe("DNS settings", () => {
  it("reads a_record_limit, use_cache, cache_max_age, disable_compression and -recursor", () => {
    const { config, warnings } = loadAgentConfig(
      [
        "-recursor",
        "9.9.9.9:53",
        "-hcl",
        'dns_config { a_record_limit = 2, use_cache = true, cache_max_age = "3s", disable_compression = true }',
      ],
      env,
    );
    expect(config.dnsConfig).toMatchObject({
      aRecordLimit: 2,
      useCache: true,
      cacheMaxAgeMs: 3_000,
      disableCompression: true,
    });
    expect(config.recursors).toEqual(["9.9.9.9:53"]);
    expect(warnings).toEqual([]);
  });
});

describe("warnings", () => {
  it("names each unknown or unimplemented key with its file", () => {
    const path = file(
      "odd.hcl",
      'bogus_key = 1\nports { http = 1\n  made_up = 2 }\nacl { tokens { dns = "x" } }\nsegments = []\ntelemetry { statsd_address = "x" }',
    );
    const { warnings } = loadAgentConfig(["-config-file", path], env);
    expect(warnings).toEqual(
      expect.arrayContaining([
        `config file ${path}: bogus_key: unknown key; ignored`,
        `config file ${path}: ports.made_up: unknown key; ignored`,
        `config file ${path}: acl.tokens.dns: not implemented by Cairn; ignored`,
        `config file ${path}: segments: not implemented by Cairn; ignored`,
        `config file ${path}: telemetry.statsd_address: not implemented by Cairn; ignored`,
      ]),
    );
    expect(warnings).toHaveLength(5);
  });

  it("maps Consul's older key names, with a warning for each", () => {
    const path = file(
      "old.json",
      JSON.stringify({
        acl_master_token: "m",
        acl_agent_token: "a",
        acl_agent_master_token: "r",
        acl_token: "d",
        acl_replication_token: "rep",
        acl_default_policy: "deny",
        acl_down_policy: "allow",
        acl_ttl: "45s",
        acl_datacenter: "DC1",
        ui: true,
      }),
    );
    const { config, warnings } = loadAgentConfig(["-config-file", path], env);
    expect(config.acl).toMatchObject({
      defaultPolicy: "deny",
      downPolicy: "allow",
      tokenTtlMs: 45_000,
      tokens: { initialManagement: "m", agent: "a", agentRecovery: "r", default: "d", replication: "rep" },
    });
    expect(config.primaryDatacenter).toBe("dc1");
    expect(config.ui.enabled).toBe(true);
    expect(warnings).toContain(
      `config file ${path}: 'acl_master_token' is deprecated; use 'acl.tokens.initial_management' instead`,
    );
    expect(warnings).toContain(`config file ${path}: 'ui' is deprecated; use 'ui_config.enabled' instead`);
    expect(warnings).toHaveLength(10);
  });

  it("maps acl.tokens.master and agent_master, preferring the current names", () => {
    const path = file(
      "t.hcl",
      'acl { tokens { master = "old" initial_management = "new" agent_master = "r" } }',
    );
    const { config } = loadAgentConfig(["-config-file", path], env);
    expect(config.acl.tokens).toMatchObject({ initialManagement: "new", agentRecovery: "r" });
  });
});

describe("errors name the source and the key", () => {
  it.each([
    ["a.hcl", "bootstrap_expect = -1", "bootstrap_expect: expected a positive integer, got -1"],
    ["a.hcl", 'bootstrap_expect = "many"', 'bootstrap_expect: expected a positive integer, got "many"'],
    ["a.json", '{"server": "yes"}', 'server: expected true or false, got "yes"'],
    [
      "a.hcl",
      "ports { http = 70000 }",
      "ports.http: expected a port number (1-65535, or -1 to disable), got 70000",
    ],
    [
      "a.hcl",
      'session_ttl_min = "10"',
      'session_ttl_min: expected a duration such as "10s" or "1m30s", got "10"',
    ],
    ["a.hcl", "retry_interval = 30", 'retry_interval: expected a duration such as "10s" or "1m30s", got 30'],
    [
      "a.hcl",
      'acl { default_policy = "maybe" }',
      'acl.default_policy: expected one of "allow", "deny", got "maybe"',
    ],
    [
      "a.hcl",
      'acl { down_policy = "x" }',
      'acl.down_policy: expected one of "allow", "deny", "extend-cache", "async-cache", got "x"',
    ],
    [
      "a.hcl",
      'log_level = "loud"',
      'log_level: expected one of "trace", "debug", "info", "warn", "error", got "loud"',
    ],
    [
      "a.hcl",
      "performance { raft_multiplier = 11 }",
      "performance.raft_multiplier: expected an integer from 1 to 10, got 11",
    ],
    ["a.hcl", "raft_snapshot_threshold = 0", "raft_snapshot_threshold: expected a positive integer, got 0"],
    [
      "a.hcl",
      'raft_snapshot_interval = "0s"',
      'raft_snapshot_interval: expected a positive duration such as "30s", got "0s"',
    ],
    ["a.hcl", "raft_trailing_logs = -1", "raft_trailing_logs: expected a non-negative integer, got -1"],
    [
      "a.hcl",
      "raft_protocol = 2",
      "raft_protocol: expected 3, the only Raft protocol version Cairn speaks, got 2",
    ],
    ["a.hcl", 'ports = "8500"', "ports: expected an object (a block)"],
    ["a.hcl", "retry_join = [{ a = 1 }]", 'retry_join: expected a list of strings, got [{"a":1}]'],
    ["a.hcl", "node_meta { a = [1] }", "node_meta: a: expected a string, got [1]"],
    ["a.hcl", "service { port = 80 }", "service[0].name: is required"],
    ["a.json", '{"services": [{"name": "a"}, {"port": 1}]}', "services[1].name: is required"],
    [
      "a.hcl",
      'service { name = "x" port = "http" }',
      'service[0].port: expected a port number (1-65535, or -1 to disable), got "http"',
    ],
    ["a.hcl", "services = 5", "services: expected an object or a list of objects"],
    [
      "a.hcl",
      "limits { kv_max_value_size = 0 }",
      "limits.kv_max_value_size: expected a positive integer, got 0",
    ],
    [
      "a.hcl",
      'dns_config { service_ttl { web = "x" } }',
      'dns_config.service_ttl.web: expected a duration such as "10s" or "1m30s", got "x"',
    ],
  ])("%s: %s", (name, content, reason) => {
    const path = file(name, content);
    expect(loadError(["-config-file", path])).toBe(`config file ${path}: ${reason}`);
  });

  it("reports several bad keys of one file on one line", () => {
    const path = file("two.hcl", 'server = "no"\nbootstrap_expect = "x"');
    expect(loadError(["-config-file", path])).toBe(
      `config file ${path}: server: expected true or false, got "no"; config file ${path}: bootstrap_expect: expected a positive integer, got "x"`,
    );
  });

  it("names the flag for a bad flag value", () => {
    expect(loadError(["-bootstrap-expect", "three"])).toBe(
      'command-line flags: -bootstrap-expect: expected a positive integer, got "three"',
    );
    expect(loadError(["-http-port=-5"])).toBe(
      'command-line flags: -http-port: expected a port number (1-65535, or -1 to disable), got "-5"',
    );
    expect(loadError(["-retry-interval=often"])).toMatch(
      /^command-line flags: -retry-interval: expected a duration/,
    );
  });

  it("names the -hcl flag as the source of a fragment", () => {
    expect(loadError(["-hcl", "log_level = 3"])).toBe(
      '-hcl flag: log_level: expected one of "trace", "debug", "info", "warn", "error", got 3',
    );
  });

  it("reports syntax errors with file, line and column", () => {
    const hcl = file("bad.hcl", "server = true\nports {\n  http = 8500 8600\n}");
    expect(loadError(["-config-file", hcl])).toBe(
      `config file ${hcl}: line 3, column 15: expected a key, found number 8600`,
    );
  });

  it("reports JSON errors and non-object JSON", () => {
    const broken = file("broken.json", '{"server": tru}');
    expect(loadError(["-config-file", broken])).toMatch(new RegExp(`^config file ${broken}: invalid JSON: `));
    const list = file("list.json", "[1, 2]");
    expect(loadError(["-config-file", list])).toBe(
      `config file ${list}: expected a JSON object at the top level`,
    );
  });

  it("reports missing files and directories", () => {
    const missing = join(root, "nope.hcl");
    expect(loadError(["-config-file", missing])).toBe(`config file ${missing}: no such file or directory`);
    expect(loadError(["-config-dir", join(root, "nodir")])).toBe(
      `config file ${join(root, "nodir")}: no such file or directory`,
    );
  });
});
