import type { AggregateSummary, MetricsSummary } from "@cairn/api";

export type Labels = Readonly<Record<string, string>>;

/**
 * What instrumented code receives (injected, never a global): counters, gauges and samples (durations in
 * milliseconds), each with optional labels. Names follow Consul's (`consul.raft.apply`, ...).
 */
export interface Metrics {
  incrCounter(name: string, value?: number, labels?: Labels): void;
  setGauge(name: string, value: number, labels?: Labels): void;
  addSample(name: string, value: number, labels?: Labels): void;
}

/** For code run without a registry. */
export const noMetrics: Metrics = { incrCounter() {}, setGauge() {}, addSample() {} };

export interface MetricsRegistryOptions {
  now?: () => number;
  /** Aggregation interval (Consul: 10 s). */
  intervalMs?: number;
  /** How many intervals are kept (Consul's in-memory sink keeps a minute). */
  retainIntervals?: number;
  /** `telemetry.prometheus_retention_time`: 0 disables the Prometheus format. */
  prometheusRetentionMs?: number;
}

interface Aggregate {
  name: string;
  labels: Labels;
  count: number;
  sum: number;
  sumSq: number;
  min: number;
  max: number;
}

interface Interval {
  start: number;
  gauges: Map<string, { name: string; labels: Labels; value: number }>;
  counters: Map<string, Aggregate>;
  samples: Map<string, Aggregate>;
}

interface Cumulative {
  name: string;
  labels: Labels;
  kind: "counter" | "gauge" | "summary";
  value: number;
  count: number;
  updated: number;
}

/**
 * An in-process metrics registry with the two views Consul offers: 10-second aggregation intervals (the
 * JSON of `/v1/agent/metrics`) and cumulative series for Prometheus, dropped after the retention time
 * without updates. Recording is a couple of map operations; summaries are computed only when read.
 */
export class MetricsRegistry implements Metrics {
  private readonly now: () => number;
  private readonly intervalMs: number;
  private readonly retain: number;
  private readonly intervals: Interval[] = [];
  private readonly cumulative = new Map<string, Cumulative>();

  constructor(private readonly options: MetricsRegistryOptions = {}) {
    this.now = options.now ?? Date.now;
    this.intervalMs = options.intervalMs ?? 10_000;
    this.retain = options.retainIntervals ?? 6;
  }

  get prometheusEnabled(): boolean {
    return (this.options.prometheusRetentionMs ?? 0) > 0;
  }

  // Unlabelled series share one label object, so that its key is computed once (seriesKey); the
  // cumulative update is a closure made only when Prometheus needs it. Several of these run per request.
  incrCounter(name: string, value = 1, labels: Labels = NO_LABELS): void {
    const key = seriesKey(name, labels);
    aggregate(this.current().counters, key, name, labels, value);
    if (!this.prometheusEnabled) return;
    this.track(key, name, labels, "counter", (c) => {
      c.value += value;
    });
  }

  setGauge(name: string, value: number, labels: Labels = NO_LABELS): void {
    const key = seriesKey(name, labels);
    this.current().gauges.set(key, { name, labels, value });
    if (!this.prometheusEnabled) return;
    this.track(key, name, labels, "gauge", (c) => {
      c.value = value;
    });
  }

  addSample(name: string, value: number, labels: Labels = NO_LABELS): void {
    const key = seriesKey(name, labels);
    aggregate(this.current().samples, key, name, labels, value);
    if (!this.prometheusEnabled) return;
    this.track(key, name, labels, "summary", (c) => {
      c.value += value;
      c.count++;
    });
  }

  /** The current interval, as `/v1/agent/metrics` returns it. */
  summary(): MetricsSummary {
    const interval = this.current();
    const seconds = this.intervalMs / 1000;
    return {
      Timestamp: new Date(interval.start)
        .toISOString()
        .replace(/\.\d{3}Z$/, " +0000 UTC")
        .replace("T", " "),
      Gauges: [...interval.gauges.values()]
        .sort(byName)
        .map((g) => ({ Name: g.name, Value: g.value, Labels: { ...g.labels } })),
      Points: [],
      Counters: [...interval.counters.values()].sort(byName).map((a) => summarize(a, seconds)),
      Samples: [...interval.samples.values()].sort(byName).map((a) => summarize(a, seconds)),
    };
  }

  /** Prometheus text exposition (version 0.0.4) of every series updated within the retention time. */
  prometheus(): string {
    const cutoff = this.now() - (this.options.prometheusRetentionMs ?? 0);
    const byMetric = new Map<string, Cumulative[]>();
    for (const [key, c] of this.cumulative) {
      if (c.updated < cutoff) {
        this.cumulative.delete(key);
        continue;
      }
      const name = promName(c.name);
      const list = byMetric.get(name) ?? [];
      list.push(c);
      byMetric.set(name, list);
    }
    let out = "";
    for (const name of [...byMetric.keys()].sort()) {
      const series = byMetric.get(name) ?? [];
      const kind = series[0]?.kind ?? "gauge";
      out += `# HELP ${name} ${name}\n# TYPE ${name} ${kind}\n`;
      for (const c of series) {
        const labels = promLabels(c.labels);
        if (kind === "summary") {
          out += `${name}_sum${labels} ${c.value}\n${name}_count${labels} ${c.count}\n`;
        } else out += `${name}${labels} ${c.value}\n`;
      }
    }
    return out;
  }

  private current(): Interval {
    const now = this.now();
    const start = now - (now % this.intervalMs);
    const last = this.intervals[this.intervals.length - 1];
    if (last !== undefined && last.start === start) return last;
    const interval: Interval = { start, gauges: new Map(), counters: new Map(), samples: new Map() };
    this.intervals.push(interval);
    if (this.intervals.length > this.retain) this.intervals.shift();
    return interval;
  }

  private track(
    key: string,
    name: string,
    labels: Labels,
    kind: Cumulative["kind"],
    update: (c: Cumulative) => void,
  ): void {
    let c = this.cumulative.get(key);
    if (c === undefined) {
      c = { name, labels, kind, value: 0, count: 0, updated: 0 };
      this.cumulative.set(key, c);
    }
    update(c);
    c.updated = this.now();
  }
}

const NO_LABELS: Labels = Object.freeze({});

/**
 * Label sets are usually reused objects (see meterFetch): the series key of each, per metric name, is built
 * once (it was a string built for every sample of every request).
 */
const seriesKeys = new WeakMap<Labels, Map<string, string>>();

function seriesKey(name: string, labels: Labels): string {
  let byName = seriesKeys.get(labels);
  if (byName === undefined) {
    byName = new Map();
    seriesKeys.set(labels, byName);
  }
  let key = byName.get(name);
  if (key === undefined) {
    const sorted = Object.keys(labels)
      .sort()
      .map((k) => `${k}=${labels[k]}`)
      .join(",");
    key = sorted === "" ? name : `${name}{${sorted}}`;
    byName.set(name, key);
  }
  return key;
}

function aggregate(
  map: Map<string, Aggregate>,
  key: string,
  name: string,
  labels: Labels,
  value: number,
): void {
  const a = map.get(key);
  if (a === undefined) {
    map.set(key, { name, labels, count: 1, sum: value, sumSq: value * value, min: value, max: value });
    return;
  }
  a.count++;
  a.sum += value;
  a.sumSq += value * value;
  if (value < a.min) a.min = value;
  if (value > a.max) a.max = value;
}

function summarize(a: Aggregate, seconds: number): AggregateSummary {
  const mean = a.sum / a.count;
  const variance = a.count > 1 ? (a.sumSq - a.count * mean * mean) / (a.count - 1) : 0;
  return {
    Name: a.name,
    Count: a.count,
    Rate: a.sum / seconds,
    Sum: a.sum,
    Min: a.min,
    Max: a.max,
    Mean: mean,
    Stddev: Math.sqrt(Math.max(0, variance)),
    Labels: { ...a.labels },
  };
}

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Consul's Prometheus names: dots and dashes become underscores. */
function promName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_:]/g, "_");
}

function promLabels(labels: Labels): string {
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return "";
  const quote = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
  return `{${keys.map((k) => `${promName(k)}="${quote(labels[k] ?? "")}"`).join(",")}}`;
}
