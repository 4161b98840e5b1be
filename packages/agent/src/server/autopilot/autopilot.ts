import type { StateReader } from "@cairn/api";
import { type ApplyResult, type AutopilotConfigSpec, COMMAND_VERSION, type Command } from "@cairn/fsm";
import type { AutopilotSettings } from "../../config/index.js";
import type { MembershipView } from "../../membership/types.js";
import { HealthMonitor, type ObservedRaft } from "./health-monitor.js";
import { configurationView, effectiveSettings, specFromSettings } from "./settings.js";

/** How often the leader samples its followers' contact for the health report. */
const HEALTH_SAMPLE_MS = 100;
/** A refused initial configuration write (leadership still settling) is tried again this much later. */
const INITIAL_RETRY_MS = 2_000;

export interface AutopilotDeps {
  store: () => StateReader;
  /** A write through Raft from any server (forwarded to the leader). */
  apply: (command: Command) => Promise<ApplyResult>;
  /** A write proposed here, as the leader. */
  applyAsLeader: (command: Command) => Promise<ApplyResult>;
  /** The agent's `autopilot` settings: the first configuration, and the fallback until one is stored. */
  agent: AutopilotSettings;
  membership?: MembershipView;
  raft: () => ObservedRaft | undefined;
  serverNames: () => ReadonlyMap<string, string>;
  now: () => number;
}

/**
 * Autopilot's configuration and health. A leader duty: while leading, the server samples health and, on its
 * first leadership of a cluster without one, stores the agent's settings as the configuration (as Consul's
 * leader does), which the operator endpoint then changes.
 */
export class Autopilot {
  readonly health: HealthMonitor;
  private leading = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly deps: AutopilotDeps) {
    this.health = new HealthMonitor({
      raft: deps.raft,
      ...(deps.membership ? { membership: deps.membership } : {}),
      serverNames: deps.serverNames,
      thresholds: () => this.settings(),
      now: deps.now,
      sampleEveryMs: HEALTH_SAMPLE_MS,
    });
  }

  start(): void {
    this.leading = true;
    this.health.start();
    this.storeInitial();
  }

  stop(): void {
    this.leading = false;
    clearTimeout(this.retry);
    this.health.stop();
  }

  /** The agent's settings become the cluster's configuration unless one is stored; retried while leading. */
  private storeInitial(): void {
    if (!this.leading || this.deps.store().view().autopilotConfig()) return;
    this.deps
      .applyAsLeader({
        v: COMMAND_VERSION,
        type: "autopilot.set",
        config: specFromSettings(this.deps.agent),
        onlyIfAbsent: true,
      })
      .catch(() => {
        this.retry = setTimeout(() => this.storeInitial(), INITIAL_RETRY_MS);
        this.retry.unref();
      });
  }

  /** The settings autopilot acts on now. */
  settings(): AutopilotSettings {
    return effectiveSettings(this.deps.store().view().autopilotConfig(), this.deps.agent);
  }

  configuration(): ReturnType<typeof configurationView> {
    return configurationView(this.deps.store().view().autopilotConfig(), this.deps.agent);
  }

  async setConfiguration(config: AutopilotConfigSpec, cas: number | undefined): Promise<boolean> {
    const result = await this.deps.apply({
      v: COMMAND_VERSION,
      type: "autopilot.set",
      config,
      ...(cas === undefined ? {} : { cas }),
    });
    return result === true;
  }
}
