import type { HealthCheck, HealthStatus, NodeService } from "@cairn/fsm";
import type { CheckDefinition, ServiceDefinition } from "./definitions.js";

/**
 * The seam between the /v1/agent routes and the local agent (its services, checks, maintenance, metrics,
 * logs and tokens). The agent process implements it; the routes only decode, authorize and encode. Refusals
 * are thrown as HttpError with Consul's status and one-line reason.
 */

/** A service the local agent holds (Consul's NodeService without the catalog's indexes). */
export type LocalService = Omit<NodeService, "CreateIndex" | "ModifyIndex">;

/** A check the local agent holds and runs, in the catalog's shape. */
export type LocalCheck = Omit<HealthCheck, "CreateIndex" | "ModifyIndex">;

/** Metrics of one aggregation interval, as `/v1/agent/metrics` returns them. */
export interface MetricsSummary {
  Timestamp: string;
  Gauges: { Name: string; Value: number; Labels: Record<string, string> }[];
  Points: { Name: string; Points: number[] }[];
  Counters: AggregateSummary[];
  Samples: AggregateSummary[];
}

export interface AggregateSummary {
  Name: string;
  Count: number;
  Rate: number;
  Sum: number;
  Min: number;
  Max: number;
  Mean: number;
  Stddev: number;
  Labels: Record<string, string>;
}

export type MonitorLevel = "trace" | "debug" | "info" | "warn" | "error";

export interface AgentBackend {
  services(): readonly LocalService[];
  service(id: string): LocalService | undefined;
  checks(): readonly LocalCheck[];
  /** Resolves at the next change to the agent's services (hash-based blocking of `/agent/service/:id`). */
  servicesChanged(): Promise<void>;
  /** Adds or replaces a service and its checks; `replaceExistingChecks` drops its checks not in `def`. */
  registerService(
    def: ServiceDefinition,
    options: { replaceExistingChecks: boolean; token: string },
  ): Promise<void>;
  /** 404 for an unknown ID. */
  deregisterService(id: string): Promise<void>;
  registerCheck(def: CheckDefinition, token: string): Promise<void>;
  /** 404 for an unknown ID. */
  deregisterCheck(id: string): Promise<void>;
  /** Sets a TTL check's status and output and restarts its TTL; 500 when the check has no TTL (as Consul). */
  updateTtl(id: string, status: HealthStatus, output: string): Promise<void>;
  nodeMaintenance(enable: boolean, reason: string): Promise<void>;
  /** 404 for an unknown service. */
  serviceMaintenance(id: string, enable: boolean, reason: string): Promise<void>;
  /** `/v1/agent/self`: Config, DebugConfig, Coord, Member, Meta. */
  self(): Record<string, unknown>;
  /** Re-reads the configuration files; rejects with what could not be reloaded. */
  reload(): Promise<void>;
  metrics(): MetricsSummary;
  /** Prometheus text exposition; undefined when prometheus_retention_time is not set. */
  prometheus(): string | undefined;
  /** Calls `onLine` with each log line at `level` or above until the returned function is called. */
  monitor(level: MonitorLevel, json: boolean, onLine: (line: string) => void): () => void;
  /** Sets one of the agent's ACL tokens; 404 for a name Consul does not know. */
  setToken(name: string, token: string): Promise<void>;
}
