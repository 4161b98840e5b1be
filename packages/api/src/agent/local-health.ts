import type { Context } from "hono";
import type { ApiEnv } from "../http/env.js";
import { encodeResponse } from "../http/respond.js";
import type { LocalCheck } from "./backend.js";

/** A service's local health as `/v1/agent/health/service/*` reports it. */
export type Aggregate = "passing" | "warning" | "critical" | "maintenance";
export const SEVERITY: Readonly<Record<Aggregate, number>> = {
  passing: 0,
  warning: 1,
  critical: 2,
  maintenance: 3,
};
const HEALTH_CODES: Readonly<Record<Aggregate, 200 | 429 | 503>> = {
  passing: 200,
  warning: 429,
  critical: 503,
  maintenance: 503,
};

/** Consul's aggregation: any maintenance check wins, then critical, then warning. */
export function aggregate(checks: readonly LocalCheck[]): Aggregate {
  let worst: Aggregate = "passing";
  for (const ch of checks) {
    const status: Aggregate =
      ch.CheckID === "_node_maintenance" || ch.CheckID.startsWith("_service_maintenance:")
        ? "maintenance"
        : ch.Status;
    if (SEVERITY[status] > SEVERITY[worst]) worst = status;
  }
  return worst;
}

const TEXT = { "Content-Type": "text/plain; charset=utf-8" };

/** `?format=text` answers the status alone; JSON otherwise; the HTTP status follows the health either way. */
export function healthResponse(c: Context<ApiEnv>, status: Aggregate, body: unknown): Response {
  const code = HEALTH_CODES[status];
  if (c.get("query").get("format") === "text") return c.body(status, code, TEXT);
  return c.body(encodeResponse(body), code, { "Content-Type": "application/json" });
}
