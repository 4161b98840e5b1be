import { formatDuration } from "@cairn/duration";
import type { AutopilotConfig, AutopilotConfigSpec } from "@cairn/fsm";
import type { AutopilotSettings } from "../../config/index.js";

const NS_PER_MS = 1_000_000;

/** The agent's `autopilot` settings as the configuration the leader first stores in Raft. */
export function specFromSettings(settings: AutopilotSettings): AutopilotConfigSpec {
  return {
    CleanupDeadServers: settings.cleanupDeadServers,
    LastContactThresholdNs: settings.lastContactThresholdMs * NS_PER_MS,
    MaxTrailingLogs: settings.maxTrailingLogs,
    MinQuorum: settings.minQuorum,
    ServerStabilizationTimeNs: settings.serverStabilizationTimeMs * NS_PER_MS,
    RedundancyZoneTag: "",
    DisableUpgradeMigration: false,
    UpgradeVersionTag: "",
  };
}

/**
 * What autopilot acts on: the configuration stored in Raft once a leader wrote it, else the agent's settings.
 * The dead server threshold is Cairn's own and always comes from the agent's settings.
 */
export function effectiveSettings(
  stored: AutopilotConfig | undefined,
  agent: AutopilotSettings,
): AutopilotSettings {
  if (!stored) return agent;
  return {
    cleanupDeadServers: stored.CleanupDeadServers,
    lastContactThresholdMs: stored.LastContactThresholdNs / NS_PER_MS,
    maxTrailingLogs: stored.MaxTrailingLogs,
    minQuorum: stored.MinQuorum,
    serverStabilizationTimeMs: stored.ServerStabilizationTimeNs / NS_PER_MS,
    deadServerCleanupThresholdMs: agent.deadServerCleanupThresholdMs,
  };
}

/** /v1/operator/autopilot/configuration's answer. */
export function configurationView(stored: AutopilotConfig | undefined, agent: AutopilotSettings) {
  const config = stored ?? { ...specFromSettings(agent), CreateIndex: 0, ModifyIndex: 0 };
  return {
    CleanupDeadServers: config.CleanupDeadServers,
    LastContactThreshold: formatDuration(config.LastContactThresholdNs),
    MaxTrailingLogs: config.MaxTrailingLogs,
    MinQuorum: config.MinQuorum,
    ServerStabilizationTime: formatDuration(config.ServerStabilizationTimeNs),
    RedundancyZoneTag: config.RedundancyZoneTag,
    DisableUpgradeMigration: config.DisableUpgradeMigration,
    UpgradeVersionTag: config.UpgradeVersionTag,
    CreateIndex: config.CreateIndex,
    ModifyIndex: config.ModifyIndex,
  };
}
