import type {
  AgentBackend,
  CheckDefinition,
  LocalCheck,
  LocalService,
  MetricsSummary,
  MonitorLevel,
  ServiceDefinition,
  StateReader,
} from "@cairn/api";
import { DomainError, type HealthStatus } from "@cairn/fsm";
import { sampleGauges } from "../metrics/instrument.js";
import type { MetricsRegistry } from "../metrics/registry.js";
import type { LogHub } from "../monitor/log-hub.js";
import type { LocalAgent } from "./local-agent.js";
import type { AgentTokenName, AgentTokens } from "./tokens.js";

export interface AgentEndpointsOptions {
  local: LocalAgent;
  metrics: MetricsRegistry;
  /** A server's state replica, for its gauges (blocked queries, sessions); a client agent has none. */
  store?: StateReader;
  logs: LogHub;
  tokens: AgentTokens;
  /** `/v1/agent/self`, built fresh on each call. */
  self: () => Record<string, unknown>;
  /** Re-reads the configuration and applies what can change; rejects with what could not be applied. */
  reload: () => Promise<void>;
}

/** The agent process behind the `/v1/agent` routes: the local agent plus metrics, logs, tokens and self. */
export class AgentEndpoints implements AgentBackend {
  constructor(private readonly o: AgentEndpointsOptions) {}

  services(): readonly LocalService[] {
    return this.o.local.listServices();
  }
  service(id: string): LocalService | undefined {
    return this.o.local.getService(id);
  }
  checks(): readonly LocalCheck[] {
    return this.o.local.listChecks();
  }
  servicesChanged(): Promise<void> {
    return this.o.local.servicesChanged();
  }
  registerService(
    def: ServiceDefinition,
    options: { replaceExistingChecks: boolean; token: string },
  ): Promise<void> {
    return this.o.local.registerService(def, options);
  }
  deregisterService(id: string): Promise<void> {
    return this.o.local.deregisterService(id);
  }
  registerCheck(def: CheckDefinition, token: string): Promise<void> {
    return this.o.local.registerCheck(def, token);
  }
  deregisterCheck(id: string): Promise<void> {
    return this.o.local.deregisterCheck(id);
  }
  updateTtl(id: string, status: HealthStatus, output: string): Promise<void> {
    return this.o.local.updateTtl(id, status, output);
  }
  nodeMaintenance(enable: boolean, reason: string): Promise<void> {
    return this.o.local.nodeMaintenance(enable, reason);
  }
  serviceMaintenance(id: string, enable: boolean, reason: string): Promise<void> {
    return this.o.local.serviceMaintenance(id, enable, reason);
  }
  self(): Record<string, unknown> {
    return this.o.self();
  }
  async reload(): Promise<void> {
    try {
      await this.o.reload();
    } catch (err) {
      throw new DomainError("failed", `Failed to reload configs: ${(err as Error).message}`);
    }
  }
  metrics(): MetricsSummary {
    sampleGauges(this.o.metrics, this.o.store);
    return this.o.metrics.summary();
  }
  prometheus(): string | undefined {
    if (!this.o.metrics.prometheusEnabled) return undefined;
    sampleGauges(this.o.metrics, this.o.store);
    return this.o.metrics.prometheus();
  }
  monitor(level: MonitorLevel, json: boolean, onLine: (line: string) => void): () => void {
    return this.o.logs.subscribe(level, json, onLine);
  }
  async setToken(name: string, token: string): Promise<void> {
    this.o.tokens.set(name as AgentTokenName, token);
  }
}
