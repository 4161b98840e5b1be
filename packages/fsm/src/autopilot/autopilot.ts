import { int, obj, optBool, optInt, optStr, type Raw } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { COMMAND_VERSION, type Versioned } from "../commands/version.js";
import type { Tables } from "../store/tables.js";

/**
 * The cluster's autopilot configuration, stored in Raft as Consul stores it: the leader writes the agent's
 * `autopilot` settings at its first leadership, and `PUT /v1/operator/autopilot/configuration` replaces it
 * (optionally check-and-set on ModifyIndex). Durations are nanoseconds.
 */
export interface AutopilotConfigSpec {
  readonly CleanupDeadServers: boolean;
  readonly LastContactThresholdNs: number;
  readonly MaxTrailingLogs: number;
  readonly MinQuorum: number;
  readonly ServerStabilizationTimeNs: number;
  readonly RedundancyZoneTag: string;
  readonly DisableUpgradeMigration: boolean;
  readonly UpgradeVersionTag: string;
}

export interface AutopilotConfig extends AutopilotConfigSpec {
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/**
 * Replaces the configuration. With `cas`, only when it equals the stored ModifyIndex (any cas passes while
 * nothing is stored, as in Consul); `onlyIfAbsent` is the leader's initial write, which never overwrites.
 * Applies to true, or false when a condition did not hold.
 */
export interface AutopilotSetCommand extends Versioned {
  readonly type: "autopilot.set";
  readonly config: AutopilotConfigSpec;
  readonly cas?: number;
  readonly onlyIfAbsent?: boolean;
}

const KEY = "config";

export function autopilotConfig(t: Tables): AutopilotConfig | undefined {
  return t.autopilot.get(KEY);
}

function decodeSpec(r: Raw): AutopilotConfigSpec {
  return {
    CleanupDeadServers: optBool(r, "CleanupDeadServers") ?? false,
    LastContactThresholdNs: int(r, "LastContactThresholdNs"),
    MaxTrailingLogs: int(r, "MaxTrailingLogs"),
    MinQuorum: int(r, "MinQuorum"),
    ServerStabilizationTimeNs: int(r, "ServerStabilizationTimeNs"),
    RedundancyZoneTag: optStr(r, "RedundancyZoneTag") ?? "",
    DisableUpgradeMigration: optBool(r, "DisableUpgradeMigration") ?? false,
    UpgradeVersionTag: optStr(r, "UpgradeVersionTag") ?? "",
  };
}

export const autopilotHandlers: HandlerMap<AutopilotSetCommand> = {
  "autopilot.set": {
    decode: (r) => {
      const cas = optInt(r, "cas");
      const onlyIfAbsent = optBool(r, "onlyIfAbsent");
      return {
        v: COMMAND_VERSION,
        type: "autopilot.set",
        config: decodeSpec(obj(r, "config")),
        ...(cas === undefined ? {} : { cas }),
        ...(onlyIfAbsent ? { onlyIfAbsent } : {}),
      };
    },
    apply(tx, c) {
      const existing = autopilotConfig(tx.tables);
      if (existing && c.onlyIfAbsent) return false;
      if (existing && c.cas !== undefined && existing.ModifyIndex !== c.cas) return false;
      tx.tables.autopilot.set(KEY, {
        ...c.config,
        CreateIndex: existing?.CreateIndex ?? tx.index,
        ModifyIndex: tx.index,
      });
      return true;
    },
  },
};
