import type { AutopilotConfigSpec } from "@cairn/fsm";
import type { Hono } from "hono";
import { z } from "zod";
import { durationNanos } from "../config-entries/fields.js";
import { readTextLimited } from "../http/body.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest } from "../http/errors.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";
import { decodeBody } from "../json/decode-body.js";

/** One server in /v1/operator/autopilot/health, in Consul's field names. */
export interface AutopilotServerHealthView {
  ID: string;
  Name: string;
  Address: string;
  SerfStatus: string;
  Version: string;
  Leader: boolean;
  /** A Go duration string ("0s", "12.5ms"). */
  LastContact: string;
  LastTerm: number;
  LastIndex: number;
  Healthy: boolean;
  Voter: boolean;
  /** RFC 3339 time this server entered its current Healthy state. */
  StableSince: string;
}

export interface AutopilotHealthView {
  Healthy: boolean;
  FailureTolerance: number;
  Servers: AutopilotServerHealthView[];
}

/** /v1/operator/autopilot/configuration, in Consul's field names (durations as Go duration strings). */
export interface AutopilotConfigurationView {
  CleanupDeadServers: boolean;
  LastContactThreshold: string;
  MaxTrailingLogs: number;
  MinQuorum: number;
  ServerStabilizationTime: string;
  RedundancyZoneTag: string;
  DisableUpgradeMigration: boolean;
  UpgradeVersionTag: string;
  CreateIndex: number;
  ModifyIndex: number;
}

/** What the autopilot endpoints need from the server. */
export interface AutopilotOperator {
  /** Computed by the leader (forwarded there from a follower). */
  autopilotHealth(): Promise<AutopilotHealthView>;
  /** The stored configuration as this server's state has it. */
  autopilotConfiguration(): AutopilotConfigurationView;
  /** Replaces the configuration (through the leader); with `cas`, only if it equals ModifyIndex. */
  setAutopilotConfiguration(config: AutopilotConfigSpec, cas: number | undefined): Promise<boolean>;
}

const MAX_CONFIG_BYTES = 64 * 1024;

const count = z.number().int().nonnegative().optional();

/** Consul's api.AutopilotConfiguration; the PUT replaces it whole, so what is left out becomes zero. */
const configurationBody = z.looseObject({
  CleanupDeadServers: z.boolean().optional(),
  LastContactThreshold: durationNanos,
  MaxTrailingLogs: count,
  MinQuorum: count,
  ServerStabilizationTime: durationNanos,
  RedundancyZoneTag: z.string().optional(),
  DisableUpgradeMigration: z.boolean().optional(),
  UpgradeVersionTag: z.string().optional(),
  CreateIndex: z.number().optional(),
  ModifyIndex: z.number().optional(),
});

type Allow = (token: string, ns: string, access: "read" | "write") => void;

/** /v1/operator/autopilot/{health,state,configuration} onto `app` (the operator router). */
export function autopilotRoutes(app: Hono<ApiEnv>, operator: AutopilotOperator, allow: Allow): void {
  route(app, "/autopilot/health", {
    GET: async (c) => {
      allow(c.get("token"), c.get("namespace"), "read");
      const health = await operator.autopilotHealth();
      // Consul answers 429 while any server is unhealthy, so load balancers can probe this endpoint.
      return jsonResponse(c, health, health.Healthy ? 200 : 429);
    },
  });

  route(app, "/autopilot/state", {
    GET: async (c) => {
      allow(c.get("token"), c.get("namespace"), "read");
      return jsonResponse(c, autopilotState(await operator.autopilotHealth()));
    },
  });

  route(app, "/autopilot/configuration", {
    GET: (c) => {
      allow(c.get("token"), c.get("namespace"), "read");
      return jsonResponse(c, operator.autopilotConfiguration());
    },
    PUT: async (c) => {
      allow(c.get("token"), c.get("namespace"), "write");
      const casText = c.get("query").get("cas");
      let cas: number | undefined;
      if (casText !== undefined) {
        cas = /^\d+$/.test(casText) ? Number(casText) : Number.NaN;
        if (!Number.isSafeInteger(cas))
          throw badRequest(`Error parsing cas value: invalid syntax "${casText}"`);
      }
      const text = await readTextLimited(c, MAX_CONFIG_BYTES, (n) => `Request body too large (${n} bytes)`);
      const body = decodeBody(configurationBody, text);
      const durationNs = (ns: number | undefined) => Math.max(0, Math.round(ns ?? 0));
      const applied = await operator.setAutopilotConfiguration(
        {
          CleanupDeadServers: body.CleanupDeadServers ?? false,
          LastContactThresholdNs: durationNs(body.LastContactThreshold),
          MaxTrailingLogs: body.MaxTrailingLogs ?? 0,
          MinQuorum: body.MinQuorum ?? 0,
          ServerStabilizationTimeNs: durationNs(body.ServerStabilizationTime),
          RedundancyZoneTag: body.RedundancyZoneTag ?? "",
          DisableUpgradeMigration: body.DisableUpgradeMigration ?? false,
          UpgradeVersionTag: body.UpgradeVersionTag ?? "",
        },
        cas,
      );
      // Consul answers the outcome of a check-and-set, and true for a plain write.
      return jsonResponse(c, cas === undefined ? true : applied);
    },
  });
}

/**
 * /v1/operator/autopilot/state (Consul 1.9+): the same observations as the health report, keyed by server
 * ID with each server's Raft role. Cairn has no read replicas or redundancy zones.
 */
function autopilotState(health: AutopilotHealthView) {
  const servers: Record<string, unknown> = {};
  for (const s of health.Servers) {
    servers[s.ID] = {
      ID: s.ID,
      Name: s.Name,
      Address: s.Address,
      NodeStatus: s.SerfStatus,
      Version: s.Version,
      LastContact: s.LastContact,
      LastTerm: s.LastTerm,
      LastIndex: s.LastIndex,
      Healthy: s.Healthy,
      StableSince: s.StableSince,
      ReadReplica: false,
      Status: s.Leader ? "leader" : s.Voter ? "voter" : "non-voter",
      Meta: {},
      NodeType: "voter",
    };
  }
  return {
    Healthy: health.Healthy,
    FailureTolerance: health.FailureTolerance,
    OptimisticFailureTolerance: health.FailureTolerance,
    Servers: servers,
    Leader: health.Servers.find((s) => s.Leader)?.ID ?? "",
    Voters: health.Servers.filter((s) => s.Voter).map((s) => s.ID),
  };
}
