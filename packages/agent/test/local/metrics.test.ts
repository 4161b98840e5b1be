import { describe, expect, it } from "vitest";
import { StatusGate } from "../../src/local/runners.js";
import { routeLabel } from "../../src/metrics/instrument.js";
import { MetricsRegistry } from "../../src/metrics/registry.js";

describe("metrics registry", () => {
  it("aggregates into 10-second intervals: counters and samples with count, sum, min, max, mean, stddev", () => {
    let now = 1_700_000_003_000;
    const m = new MetricsRegistry({ now: () => now });
    m.addSample("consul.kvs.apply", 2, { op: "kv.set" });
    m.addSample("consul.kvs.apply", 4, { op: "kv.set" });
    m.incrCounter("consul.raft.apply");
    m.incrCounter("consul.raft.apply", 2);
    m.setGauge("consul.runtime.alloc_bytes", 10);
    m.setGauge("consul.runtime.alloc_bytes", 12);
    const s = m.summary();
    expect(s.Timestamp).toBe("2023-11-14 22:13:20 +0000 UTC");
    expect(s.Gauges).toEqual([{ Name: "consul.runtime.alloc_bytes", Value: 12, Labels: {} }]);
    expect(s.Counters[0]).toMatchObject({
      Name: "consul.raft.apply",
      Count: 2,
      Sum: 3,
      Min: 1,
      Max: 2,
      Mean: 1.5,
    });
    const sample = s.Samples[0];
    expect(sample).toMatchObject({
      Name: "consul.kvs.apply",
      Count: 2,
      Sum: 6,
      Min: 2,
      Max: 4,
      Mean: 3,
      Labels: { op: "kv.set" },
    });
    expect(sample?.Stddev).toBeCloseTo(Math.SQRT2);
    now += 10_000;
    expect(m.summary().Samples).toEqual([]);
  });

  it("Prometheus text: cumulative series, dropped after the retention time; off without retention", () => {
    let now = 0;
    const m = new MetricsRegistry({ now: () => now, prometheusRetentionMs: 60_000 });
    m.incrCounter("consul.raft.apply");
    now += 20_000;
    m.incrCounter("consul.raft.apply");
    m.addSample("consul.api.http", 5, { method: "GET", path: '/v1/kv/"x"' });
    expect(m.prometheus()).toBe(
      [
        "# HELP consul_api_http consul_api_http",
        "# TYPE consul_api_http summary",
        'consul_api_http_sum{method="GET",path="/v1/kv/\\"x\\""} 5',
        'consul_api_http_count{method="GET",path="/v1/kv/\\"x\\""} 1',
        "# HELP consul_raft_apply consul_raft_apply",
        "# TYPE consul_raft_apply counter",
        "consul_raft_apply 2",
        "",
      ].join("\n"),
    );
    now += 70_000;
    expect(m.prometheus()).toBe("");
    expect(new MetricsRegistry().prometheusEnabled).toBe(false);
  });

  it("labels HTTP routes without their parameters", () => {
    expect(routeLabel("/v1/kv/a/b/c")).toBe("/v1/kv/*");
    expect(routeLabel("/v1/kv/v1")).toBe("/v1/kv/*");
    expect(routeLabel("/v1/kv/")).toBe("/v1/kv");
    expect(routeLabel("/v1/kv")).toBe("/v1/kv");
    expect(routeLabel("/v1/agent/service/deregister/web/1")).toBe("/v1/agent/service/deregister/*");
    expect(routeLabel("/v1/agent/services")).toBe("/v1/agent/services");
    expect(routeLabel("/v1/catalog/service/web")).toBe("/v1/catalog/service/*");
    expect(routeLabel("/v1/status/leader")).toBe("/v1/status/leader");
  });
});

describe("status gate (success_before_passing / failures_before_warning / failures_before_critical)", () => {
  const pass = { status: "passing" as const, output: "ok" };
  const warn = { status: "warning" as const, output: "slow" };
  const fail = { status: "critical" as const, output: "down" };

  it("applies the first result at once, then only after enough results of its kind in a row", () => {
    const gate = new StatusGate(2, 3, 3);
    expect(gate.next(pass)).toBe(pass);
    expect(gate.next(fail)).toBeUndefined();
    expect(gate.next(fail)).toBeUndefined();
    expect(gate.next(pass)).toBeUndefined();
    expect(gate.next(fail)).toBeUndefined();
    expect(gate.next(fail)).toBeUndefined();
    expect(gate.next(fail)).toBe(fail);
    expect(gate.next(pass)).toBeUndefined();
    expect(gate.next(pass)).toBe(pass);
  });

  it("counts a warning result as a success, as Consul does", () => {
    const gate = new StatusGate(2, 1, 1);
    expect(gate.next(fail)).toBe(fail);
    expect(gate.next(warn)).toBeUndefined();
    expect(gate.next(warn)).toBe(warn);
  });

  it("turns warning after failures_before_warning failures, critical after failures_before_critical", () => {
    const gate = new StatusGate(1, 1, 3);
    expect(gate.next(pass)).toBe(pass);
    expect(gate.next(fail)).toEqual({ status: "warning", output: "down" });
    expect(gate.next(fail)).toEqual({ status: "warning", output: "down" });
    expect(gate.next(fail)).toBe(fail);
  });
});
