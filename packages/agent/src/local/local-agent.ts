import {
  type CheckDefinition,
  DefinitionError,
  type LocalCheck,
  type LocalService,
  type ServiceDefinition,
  upgradeCheckDefinition,
} from "@cairn/api";
import { DomainError, type HealthStatus } from "@cairn/fsm";
import type { Logger } from "pino";
import { type CatalogFetch, LocalAliasRunner, RemoteAliasRunner } from "./alias-check.js";
import { AntiEntropy } from "./anti-entropy.js";
import type { AgentCatalog } from "./catalog.js";
import {
  checkRecord,
  NODE_MAINTENANCE_CHECK,
  nodeMaintenanceCheck,
  SERVICE_MAINTENANCE_PREFIX,
  serviceMaintenanceCheck,
} from "./check-records.js";
import { type Clock, systemClock } from "./clock.js";
import { type ConfigDefinitions, type Configured, parseConfigDefinitions } from "./config-definitions.js";
import { DEFAULT_DOCKER_HOST } from "./docker-probe.js";
import { LocalPersistence } from "./persistence.js";
import { probeFor } from "./probe-for.js";
import { type CheckRunner, IntervalRunner, StatusGate, TtlRunner } from "./runners.js";
import type { LocalSnapshot, NodeIdentity, SyncTokens } from "./sync-plan.js";

export interface LocalAgentOptions {
  node: NodeIdentity;
  /** Where anti-entropy reads and writes this node's catalog entries. */
  catalog: AgentCatalog;
  log: Logger;
  /** Where API registrations persist; undefined keeps them in memory (dev mode). */
  dataDir: string | undefined;
  enableScriptChecks: boolean;
  enableLocalScriptChecks: boolean;
  clock?: Clock;
  random?: () => number;
  /** Full anti-entropy period (Consul: 1 minute, scaled with cluster size). */
  syncIntervalMs?: number;
  syncRetryMs?: number;
  /** How long an API change waits for its catalog sync before answering anyway (the sync goes on). */
  syncWaitMs?: number;
  /** Shortest check interval; shorter ones are raised to it, as Consul does (1 s). */
  minCheckIntervalMs?: number;
  /** Shortest DeregisterCriticalServiceAfter; shorter ones are raised to it, as Consul does (1 minute). */
  minDeregisterAfterMs?: number;
  /** How often services with long-critical checks are looked for (Consul: 30 s). */
  reapIntervalMs?: number;
  /** The agent's `agent` and `default` ACL tokens of the moment; none when absent. */
  tokens?: { get(name: "agent" | "default"): string };
  /**
   * Requests to the cluster's HTTP API (a client agent's go to a server): alias checks of another node's
   * service hold blocking queries on the catalog with it. Without it they are critical.
   */
  catalogFetch?: CatalogFetch;
  /** The Docker Engine API for Docker checks, as DOCKER_HOST gives it (Consul's default: the local socket). */
  dockerHost?: string;
}

/** Where an entry came from: the HTTP API (persisted) or a configuration file (re-read on reload). */
type Source = "api" | "config";

interface ServiceEntry {
  service: LocalService;
  source: Source;
  token: string;
}

interface CheckEntry {
  check: LocalCheck;
  /** Undefined for maintenance checks, which nothing runs. */
  def: CheckDefinition | undefined;
  source: Source;
  token: string;
  runner?: CheckRunner;
  ttl?: TtlRunner;
  /** An alias of a service on this agent, told of every change to the agent's checks and services. */
  localAlias?: LocalAliasRunner;
  /** When the check last became critical (for DeregisterCriticalServiceAfter). */
  criticalSince?: number;
  deregisterAfterMs: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * The agent's own services and checks: what `/v1/agent/*` registers, what configuration files define, the
 * check runners keeping their statuses current, maintenance mode, and anti-entropy keeping the catalog in
 * step with all of it.
 */
export class LocalAgent {
  private readonly services = new Map<string, ServiceEntry>();
  private readonly checks = new Map<string, CheckEntry>();
  /** Services changed since their last sync -> change counter (EnableTagOverride needs to know). */
  private readonly changed = new Map<string, number>();
  private changes = 0;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly persistence: LocalPersistence;
  private readonly sync: AntiEntropy;
  private readonly log: Logger;
  private reaper: unknown;
  private stopped = false;
  /** Settled and replaced at every change to the services (blocking reads of /agent/service/:id). */
  private serviceChange = deferred();
  /** While start() restores checks, persisted TTL states apply. */
  private restoring = false;

  constructor(private readonly o: LocalAgentOptions) {
    this.clock = o.clock ?? systemClock;
    this.random = o.random ?? Math.random;
    this.log = o.log;
    this.persistence = new LocalPersistence(o.dataDir);
    this.sync = new AntiEntropy({
      catalog: o.catalog,
      clock: this.clock,
      log: o.log,
      local: () => this.snapshot(),
      adoptTags: (id, tags) => this.adoptTags(id, tags),
      synced: (changed) => {
        for (const [id, version] of changed) if (this.changed.get(id) === version) this.changed.delete(id);
      },
      intervalMs: o.syncIntervalMs ?? 60_000,
      retryMs: o.syncRetryMs ?? 3_000,
      random: this.random,
    });
  }

  get nodeName(): string {
    return this.o.node.name;
  }

  /**
   * Restores what the API registered before a restart, adds the configuration's services and checks, and
   * starts syncing. Throws DefinitionError for an invalid configuration definition.
   */
  start(config: ConfigDefinitions): void {
    this.restoring = true;
    try {
      this.restore(config);
    } finally {
      this.restoring = false;
    }
    this.sync.start();
    this.scheduleReap();
  }

  private restore(config: ConfigDefinitions): void {
    const restored = this.persistence.load((path, reason) =>
      this.log.warn({ path, reason }, "skipping an unreadable persisted service or check"),
    );
    for (const { Service, Token } of restored.services) {
      this.services.set(Service.ID, { service: Service, source: "api", token: Token });
    }
    for (const { Check, Definition, Token } of restored.checks) {
      if (Check.ServiceID && !this.services.has(Check.ServiceID)) continue;
      const def = Definition === undefined ? undefined : upgradeCheckDefinition(Definition);
      this.addCheckEntry(Check, def, "api", Token);
    }
    this.applyConfig(config);
  }

  stop(): void {
    this.stopped = true;
    this.sync.stop();
    this.clock.clearTimeout(this.reaper);
    for (const entry of this.checks.values()) stopRunners(entry);
  }

  listServices(): LocalService[] {
    return [...this.services.values()].map((e) => e.service);
  }

  getService(id: string): LocalService | undefined {
    return this.services.get(id)?.service;
  }

  listChecks(): LocalCheck[] {
    return [...this.checks.values()].map((e) => e.check);
  }

  /** EnableTagOverride: tags changed in the catalog become the service's tags here too. */
  private adoptTags(id: string, tags: readonly string[]): void {
    const entry = this.services.get(id);
    if (entry === undefined) return;
    this.servicesMoved();
    entry.service = { ...entry.service, Tags: [...tags] };
    if (entry.source === "api") this.persistence.saveService({ Service: entry.service, Token: entry.token });
    for (const check of this.checks.values()) {
      if (check.check.ServiceID === id) check.check = withService(check.check, entry.service);
    }
  }

  /** Syncs with the catalog now rather than at the next period (a client agent's first server appeared). */
  syncNow(): void {
    void this.sync.trigger();
  }

  /** What anti-entropy compares with the catalog. */
  snapshot(): LocalSnapshot {
    return {
      node: this.o.node,
      services: this.listServices(),
      checks: this.listChecks(),
      changed: new Map(this.changed),
      tokens: this.syncTokens(),
    };
  }

  /**
   * Each entry's token for anti-entropy: its own, else the default token. The agent's node maintenance
   * check, which the API hands no token for, goes with the agent token as node info does.
   */
  private syncTokens(): SyncTokens {
    const defaultToken = this.o.tokens?.get("default") ?? "";
    const agent = this.o.tokens?.get("agent") || defaultToken;
    const services = new Map<string, string>();
    for (const [id, entry] of this.services) services.set(id, entry.token || defaultToken);
    const checks = new Map<string, string>();
    for (const [id, entry] of this.checks) {
      const ownNode = entry.def === undefined && !entry.check.ServiceID;
      checks.set(id, entry.token || (ownNode ? agent : defaultToken));
    }
    return { services, checks, agent };
  }

  async registerService(
    def: ServiceDefinition,
    options: { replaceExistingChecks: boolean; token: string },
  ): Promise<void> {
    for (const check of def.Checks) this.vetCheck(check, "api");
    this.putService(def, options.replaceExistingChecks, options.token, "api");
    await this.syncSoon();
  }

  private putService(
    def: ServiceDefinition,
    replaceExistingChecks: boolean,
    token: string,
    source: Source,
  ): void {
    const previous = this.services.get(def.ID);
    const service: LocalService = {
      ID: def.ID,
      Service: def.Service,
      Tags: [...def.Tags],
      Address: def.Address,
      TaggedAddresses: def.TaggedAddresses,
      Meta: def.Meta,
      Port: def.Port,
      Kind: def.Kind,
      Proxy: def.Proxy,
      Connect: def.Connect,
      EnableTagOverride: def.EnableTagOverride,
      Weights: def.Weights,
      Namespace: def.Namespace,
    };
    this.services.set(def.ID, { service, source, token });
    this.servicesMoved();
    this.changed.set(def.ID, ++this.changes);
    if (source === "api") this.persistence.saveService({ Service: service, Token: token });
    const wanted = new Set(def.Checks.map((c) => c.CheckID));
    for (const [id, entry] of this.checks) {
      if (entry.check.ServiceID !== def.ID || wanted.has(id)) continue;
      if (replaceExistingChecks && entry.def !== undefined) this.removeCheckEntry(id);
      else if (previous) this.checks.set(id, { ...entry, check: withService(entry.check, service) });
    }
    for (const check of def.Checks) this.putCheck(check, source, token);
    this.log.info({ service: def.ID }, "Registered service");
  }

  async deregisterService(id: string): Promise<void> {
    if (!this.services.has(id)) {
      throw new DomainError(
        "not-found",
        `Unknown service ID "${id}". Ensure that the service ID is passed, not the service name.`,
      );
    }
    this.removeService(id);
    await this.syncSoon();
  }

  async registerCheck(def: CheckDefinition, token: string, source: Source = "api"): Promise<void> {
    this.vetCheck(def, source);
    if (def.ServiceID && !this.services.has(def.ServiceID)) {
      throw new DomainError("invalid", `ServiceID "${def.ServiceID}" does not exist`);
    }
    this.putCheck(def, source, token);
    await this.syncSoon();
  }

  async deregisterCheck(id: string): Promise<void> {
    if (!this.checks.has(id)) {
      throw new DomainError(
        "not-found",
        `Unknown check ID "${id}". Ensure that the check ID is passed, not the check name.`,
      );
    }
    this.removeCheckEntry(id);
    await this.syncSoon();
  }

  async updateTtl(id: string, status: HealthStatus, output: string): Promise<void> {
    const entry = this.checks.get(id);
    if (entry?.ttl === undefined)
      throw new DomainError("failed", `CheckID "${id}" does not have associated TTL`);
    entry.ttl.reset(output);
    this.setStatus(id, status, output);
    const ttlMs = (entry.def?.TtlNs ?? 0) / 1e6;
    this.persistence.saveCheckState(id, {
      Status: status,
      Output: output,
      Expires: this.clock.now() + ttlMs,
    });
    await this.syncSoon();
  }

  async nodeMaintenance(enable: boolean, reason: string): Promise<void> {
    if (enable === this.checks.has(NODE_MAINTENANCE_CHECK)) return;
    if (enable) {
      this.putStaticCheck(nodeMaintenanceCheck(this.o.node.name, reason), "");
      this.log.warn("Node entered maintenance mode");
    } else {
      this.removeCheckEntry(NODE_MAINTENANCE_CHECK);
      this.log.info("Node left maintenance mode");
    }
    await this.syncSoon();
  }

  async serviceMaintenance(id: string, enable: boolean, reason: string): Promise<void> {
    const entry = this.services.get(id);
    if (entry === undefined) throw new DomainError("not-found", `Unknown service ID "${id}"`);
    const checkId = `${SERVICE_MAINTENANCE_PREFIX}${id}`;
    if (enable === this.checks.has(checkId)) return;
    if (enable) {
      // The API hands no token for it: the service's own writes its maintenance check.
      this.putStaticCheck(serviceMaintenanceCheck(this.o.node.name, entry.service, reason), entry.token);
      this.log.warn({ service: id }, "Service entered maintenance mode");
    } else {
      this.removeCheckEntry(checkId);
      this.log.info({ service: id }, "Service left maintenance mode");
    }
    await this.syncSoon();
  }

  /**
   * Replaces the services and checks that came from configuration files with `config`'s (reload). All are
   * validated first: an invalid one changes nothing and is reported.
   */
  reloadConfig(config: ConfigDefinitions): void {
    const parsed = parseConfigDefinitions(config);
    for (const def of [...parsed.services.flatMap((s) => s.def.Checks), ...parsed.checks.map((c) => c.def)])
      this.vetCheck(def, "config");
    for (const [id, entry] of this.checks) if (entry.source === "config") this.removeCheckEntry(id);
    for (const [id, entry] of this.services) if (entry.source === "config") this.removeService(id);
    this.applyParsed(parsed);
    void this.sync.trigger();
  }

  private applyConfig(config: ConfigDefinitions): void {
    this.applyParsed(parseConfigDefinitions(config));
  }

  private applyParsed(parsed: {
    services: Configured<ServiceDefinition>[];
    checks: Configured<CheckDefinition>[];
  }): void {
    for (const { def, token } of parsed.services) {
      for (const check of def.Checks) this.vetCheck(check, "config");
      this.putService(def, false, token, "config");
    }
    for (const { def, token } of parsed.checks) {
      this.vetCheck(def, "config");
      if (def.ServiceID && !this.services.has(def.ServiceID)) {
        throw new DefinitionError(`check ${def.CheckID}: ServiceID "${def.ServiceID}" does not exist`);
      }
      this.putCheck(def, "config", token);
    }
  }

  /**
   * Consul refuses script checks unless enabled, for the API only with enable_script_checks; a Docker
   * check runs a script too (in a container) and is refused alike.
   */
  private vetCheck(def: CheckDefinition, source: Source): void {
    if (def.Kind !== "script" && def.Kind !== "docker") return;
    const allowed = this.o.enableScriptChecks || (source === "config" && this.o.enableLocalScriptChecks);
    if (!allowed) {
      throw new DomainError(
        "invalid",
        "Scripts are disabled on this agent; to enable them, set enable_script_checks (or enable_local_script_checks for checks from configuration files)",
      );
    }
  }

  /** Resolves at the next change to the services. */
  servicesChanged(): Promise<void> {
    return this.serviceChange.promise;
  }

  private servicesMoved(): void {
    this.serviceChange.resolve();
    this.serviceChange = deferred();
    this.aliasesLook();
  }

  private removeService(id: string): void {
    this.servicesMoved();
    for (const [checkId, entry] of this.checks)
      if (entry.check.ServiceID === id) this.removeCheckEntry(checkId);
    const entry = this.services.get(id);
    this.services.delete(id);
    this.changed.delete(id);
    if (entry?.source === "api") this.persistence.removeService(id);
    this.log.info({ service: id }, "Deregistered service");
  }

  private removeCheckEntry(id: string): void {
    const entry = this.checks.get(id);
    if (entry === undefined) return;
    stopRunners(entry);
    this.checks.delete(id);
    this.aliasesLook();
    if (entry.source === "api") this.persistence.removeCheck(id);
  }

  /** Adds or replaces a check the agent runs; an existing check keeps its status unless one is given. */
  private putCheck(def: CheckDefinition, source: Source, token: string): void {
    const service = def.ServiceID ? this.services.get(def.ServiceID)?.service : undefined;
    const existing = this.checks.get(def.CheckID);
    const keep = existing !== undefined && def.Status === undefined;
    const check = checkRecord(
      def,
      this.o.node.name,
      service,
      keep ? existing.check.Status : undefined,
      keep ? existing.check.Output : "",
    );
    if (existing) this.removeCheckEntry(def.CheckID);
    if (source === "api") this.persistence.saveCheck({ Check: check, Definition: def, Token: token });
    this.addCheckEntry(check, def, source, token);
  }

  private putStaticCheck(check: LocalCheck, token: string): void {
    this.persistence.saveCheck({ Check: check, Definition: undefined, Token: token });
    this.addCheckEntry(check, undefined, "api", token);
  }

  private addCheckEntry(
    initial: LocalCheck,
    def: CheckDefinition | undefined,
    source: Source,
    token: string,
  ): void {
    let check = initial;
    let ttlLeftMs: number | undefined;
    if (this.restoring && def?.Kind === "ttl") {
      const state = this.persistence.checkState(check.CheckID);
      if (state !== undefined && state.Expires > this.clock.now()) {
        check = { ...check, Status: state.Status, Output: state.Output };
        ttlLeftMs = state.Expires - this.clock.now();
      }
    }
    const entry: CheckEntry = {
      check,
      def,
      source,
      token,
      deregisterAfterMs: def ? this.deregisterAfterMs(def) : 0,
      ...(check.Status === "critical" ? { criticalSince: this.clock.now() } : {}),
    };
    this.checks.set(check.CheckID, entry);
    if (def !== undefined) this.startRunner(entry, def, ttlLeftMs);
    this.aliasesLook();
  }

  private startRunner(entry: CheckEntry, def: CheckDefinition, ttlLeftMs?: number): void {
    const id = def.CheckID;
    if (def.Kind === "ttl") {
      const expire = (output: string) => this.setStatus(id, "critical", output);
      entry.ttl = new TtlRunner(this.clock, def.TtlNs / 1e6, expire, ttlLeftMs);
      return;
    }
    if (def.Kind === "alias") {
      this.startAlias(entry, def);
      return;
    }
    let intervalMs = def.IntervalNs / 1e6;
    const minimum = this.o.minCheckIntervalMs ?? 1_000;
    if (intervalMs < minimum) {
      this.log.warn({ check: id, minimum }, "check interval below the minimum; using the minimum");
      intervalMs = minimum;
    }
    const timeoutMs = def.TimeoutNs > 0 ? def.TimeoutNs / 1e6 : DEFAULT_TIMEOUT_MS;
    const probe = probeFor(def, timeoutMs, {
      dockerHost: this.o.dockerHost ?? process.env.DOCKER_HOST ?? DEFAULT_DOCKER_HOST,
    });
    if (probe === undefined) return;
    const gate = new StatusGate(
      def.SuccessBeforePassing,
      def.FailuresBeforeWarning,
      def.FailuresBeforeCritical,
    );
    entry.runner = new IntervalRunner(
      this.clock,
      intervalMs,
      probe,
      (result) => {
        const accepted = gate.next(result);
        if (accepted) this.setStatus(id, accepted.status, accepted.output);
      },
      Math.floor(this.random() * intervalMs),
    );
  }

  /**
   * An alias check, as Consul runs it: without AliasNode it follows the service on this agent; with one, the
   * catalog's view of that node. It reports every result as it is (no thresholds, as in Consul).
   */
  private startAlias(entry: CheckEntry, def: CheckDefinition): void {
    const id = def.CheckID;
    const target = { node: def.AliasNode, serviceId: def.AliasService, namespace: entry.check.Namespace };
    const self = { node: this.o.node.name, checkId: id };
    const report = ({ status, output }: { status: HealthStatus; output: string }) =>
      this.setStatus(id, status, output);
    if (def.AliasNode === "") {
      const read = () => ({
        checks: this.listChecks(),
        serviceExists: (serviceId: string) => this.services.has(serviceId),
      });
      entry.localAlias = new LocalAliasRunner(target, self, this.clock, read, report);
      entry.runner = entry.localAlias;
      return;
    }
    // The check's own token, else the agent's default one, as anti-entropy writes it.
    const token = () => entry.token || this.o.tokens?.get("default") || "";
    entry.runner = new RemoteAliasRunner(target, self, this.clock, this.o.catalogFetch, token, report);
  }

  /** The agent's checks or services changed: aliases of its services look again. */
  private aliasesLook(): void {
    for (const entry of this.checks.values()) entry.localAlias?.changed();
  }

  private deregisterAfterMs(def: CheckDefinition): number {
    if (def.DeregisterCriticalServiceAfterNs <= 0 || !def.ServiceID) return 0;
    return Math.max(def.DeregisterCriticalServiceAfterNs / 1e6, this.o.minDeregisterAfterMs ?? 60_000);
  }

  /** A check's new result: recorded, and synced at once when the status changed. */
  private setStatus(id: string, status: HealthStatus, output: string): void {
    const entry = this.checks.get(id);
    if (entry === undefined || this.stopped) return;
    const previous = entry.check.Status;
    if (previous === status && entry.check.Output === output) return;
    entry.check = { ...entry.check, Status: status, Output: output };
    this.aliasesLook();
    if (status === "critical" && previous !== "critical") entry.criticalSince = this.clock.now();
    if (status !== "critical") entry.criticalSince = undefined;
    if (previous !== status) {
      this.log.info({ check: id, status }, "Check status changed");
      void this.sync.trigger();
    }
  }

  /** DeregisterCriticalServiceAfter: services whose check stayed critical that long are removed. */
  private scheduleReap(): void {
    if (this.stopped) return;
    this.reaper = this.clock.setTimeout(() => {
      this.reap();
      this.scheduleReap();
    }, this.o.reapIntervalMs ?? 30_000);
  }

  private reap(): void {
    const now = this.clock.now();
    const doomed = new Set<string>();
    for (const entry of this.checks.values()) {
      if (entry.deregisterAfterMs === 0 || entry.criticalSince === undefined) continue;
      if (now - entry.criticalSince > entry.deregisterAfterMs) doomed.add(entry.check.ServiceID);
    }
    for (const id of doomed) {
      if (!this.services.has(id)) continue;
      this.log.info(
        { service: id },
        "removed service: its check stayed critical past DeregisterCriticalServiceAfter",
      );
      this.removeService(id);
    }
    if (doomed.size > 0) void this.sync.trigger();
  }

  /** Waits for the catalog to take the change, but never longer than syncWaitMs (anti-entropy keeps trying). */
  private async syncSoon(): Promise<void> {
    const wait = this.o.syncWaitMs ?? 2_000;
    let timer: unknown;
    await Promise.race([
      this.sync.trigger(),
      new Promise<void>((resolve) => {
        timer = this.clock.setTimeout(resolve, wait);
      }),
    ]);
    this.clock.clearTimeout(timer);
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function stopRunners(entry: CheckEntry): void {
  entry.runner?.stop();
  entry.ttl?.stop();
}

/** A check record after its service changed (name and tags follow the service). */
function withService(check: LocalCheck, service: LocalService): LocalCheck {
  return { ...check, ServiceName: service.Service, ServiceTags: [...service.Tags] };
}
