import { writeJson } from "@cairn/json";
import type { Hono } from "hono";
import type { ApiEnv } from "../http/env.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";

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
  autopilotConfiguration(): AutopilotConfigurationView;
}

type Allow = (token: string, ns: string, access: "read" | "write") => void;

/** /v1/operator/autopilot/{health,configuration} onto `app` (the operator router). */
export function autopilotRoutes(app: Hono<ApiEnv>, operator: AutopilotOperator, allow: Allow): void {
  route(app, "/autopilot/health", {
    GET: async (c) => {
      allow(c.var.token, c.var.namespace, "read");
      const health = await operator.autopilotHealth();
      // Consul answers 429 while any server is unhealthy, so load balancers can probe this endpoint.
      if (health.Healthy) return jsonResponse(c, health);
      return c.body(writeJson(health), 429, { "Content-Type": "application/json" });
    },
  });

  route(app, "/autopilot/configuration", {
    GET: (c) => {
      allow(c.var.token, c.var.namespace, "read");
      return jsonResponse(c, operator.autopilotConfiguration());
    },
  });
}
