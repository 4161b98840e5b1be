import { describe, expect, it } from "vitest";
import { parseAgentFlags } from "../../src/config/flags.js";
import { ConfigError } from "../../src/config/source.js";

describe("parseAgentFlags", () => {
  it("takes values as `-flag value`, `-flag=value`, `--flag value` and `--flag=value`", () => {
    for (const argv of [
      ["-data-dir", "/d", "-node", "n1"],
      ["-data-dir=/d", "-node=n1"],
      ["--data-dir", "/d", "--node", "n1"],
      ["--data-dir=/d", "--node=n1"],
    ]) {
      expect(parseAgentFlags(argv).values).toEqual({ data_dir: "/d", node_name: "n1" });
    }
  });

  it("reads booleans as `-server`, `-server=true`, `-server=false` and Go's other spellings", () => {
    expect(parseAgentFlags(["-server"]).values).toEqual({ server: true });
    expect(parseAgentFlags(["--server=true"]).values).toEqual({ server: true });
    expect(parseAgentFlags(["-server=false"]).values).toEqual({ server: false });
    expect(parseAgentFlags(["-server=1", "-bootstrap=F"]).values).toEqual({ server: true, bootstrap: false });
    expect(parseAgentFlags(["-ui", "-log-json", "-rejoin"]).values).toEqual({
      ui_config: { enabled: true },
      log_json: true,
      rejoin_after_leave: true,
    });
  });

  it("does not let a boolean flag swallow the next argument", () => {
    expect(parseAgentFlags(["-server", "-node", "x"]).values).toEqual({ server: true, node_name: "x" });
  });

  it("maps flags to Consul's config keys", () => {
    const flags = parseAgentFlags([
      "-bootstrap-expect=3",
      "-datacenter=dc2",
      "-bind=10.0.0.1",
      "-advertise=10.0.0.2",
      "-client=0.0.0.0",
      "-http-port=18500",
      "-dns-port=18600",
      "-server-port=18300",
      "-serf-lan-port=18301",
      "-node-id=adf4238a-882b-9ddc-4a9d-5b6758e4159e",
      "-log-level=debug",
      "-pid-file=/run/c.pid",
      "-encrypt=abc",
    ]);
    expect(flags.values).toEqual({
      bootstrap_expect: "3",
      datacenter: "dc2",
      bind_addr: "10.0.0.1",
      advertise_addr: "10.0.0.2",
      client_addr: "0.0.0.0",
      ports: { http: "18500", dns: "18600", server: "18300", serf_lan: "18301" },
      node_id: "adf4238a-882b-9ddc-4a9d-5b6758e4159e",
      log_level: "debug",
      pid_file: "/run/c.pid",
      encrypt: "abc",
    });
  });

  it("repeats -retry-join, -retry-join-wan, -join, -recursor and -node-meta", () => {
    const flags = parseAgentFlags([
      "-retry-join",
      "10.0.0.1",
      "-retry-join=10.0.0.2:8301",
      "-retry-join-wan=10.1.0.1:8302",
      "-join=a",
      "-recursor=8.8.8.8",
      "-node-meta=rack:r1",
      "-node-meta=a.b:c:d",
    ]);
    expect(flags.lists).toEqual({
      retry_join: ["10.0.0.1", "10.0.0.2:8301"],
      retry_join_wan: ["10.1.0.1:8302"],
      start_join: ["a"],
      recursors: ["8.8.8.8"],
    });
    expect(flags.values).toEqual({ node_meta: { rack: "r1", "a.b": "c:d" } });
  });

  it("collects config paths in order, -config-format, -hcl, -dev and -clock-offset", () => {
    const flags = parseAgentFlags([
      "-config-file=/a.json",
      "-config-dir",
      "/etc/d",
      "-config-file",
      "/b.hcl",
      "-config-format=hcl",
      "-hcl",
      "server = true",
      '-hcl=log_level = "warn"',
      "-dev",
      "-clock-offset",
      "-1m30s",
    ]);
    expect(flags).toEqual({
      dev: true,
      values: {},
      lists: {},
      configPaths: ["/a.json", "/etc/d", "/b.hcl"],
      configFormat: "hcl",
      hcl: ["server = true", 'log_level = "warn"'],
      clockOffsetMs: -90_000,
    });
  });

  it("keeps '=' inside values", () => {
    expect(parseAgentFlags(["-encrypt=pUqJrVyVRj5jsiYEkM/tFQYfWyJIv4s3XkvDwy7Cu5s="]).values).toEqual({
      encrypt: "pUqJrVyVRj5jsiYEkM/tFQYfWyJIv4s3XkvDwy7Cu5s=",
    });
  });

  it("stops at `--`", () => {
    expect(parseAgentFlags(["-server", "--"]).values).toEqual({ server: true });
  });

  it.each([
    [["-foo"], "unknown flag -foo"],
    [["--no-such=1"], "unknown flag -no-such"],
    [["-data-dir"], "-data-dir: needs a value"],
    [["-server=maybe"], `-server: expected true or false, got "maybe"`],
    [["-dev=2"], `-dev: expected true or false, got "2"`],
    [["agent"], `unexpected argument "agent": the agent takes only flags`],
    [["-server", "extra"], `unexpected argument "extra": the agent takes only flags`],
    [["--", "x"], `unexpected argument "x": the agent takes only flags`],
    [["-"], `unexpected argument "-": the agent takes only flags`],
    [["---server"], "bad flag syntax: ---server"],
    [["-=x"], "bad flag syntax: -=x"],
    [["-config-format=yaml"], `-config-format: expected "hcl" or "json", got "yaml"`],
    [["-clock-offset=soon"], `-clock-offset: expected a duration such as "90s" or "-5m", got "soon"`],
    [["-node-meta=novalue"], `-node-meta: expected key:value, got "novalue"`],
  ])("rejects %j", (argv, message) => {
    expect(() => parseAgentFlags(argv)).toThrow(new ConfigError(message));
  });
});
