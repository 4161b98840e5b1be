import { type PreparedQueryDefinition, planFailover } from "@cairn/discovery";
import { type JsonValue, readJson, writeJson } from "@cairn/json";
import type { RouteContext } from "../http/route-context.js";
import type { ExecuteResult } from "./execute.js";

/** Where a server of another datacenter runs a query it is sent (the query travels; it need not exist there). */
export const EXECUTE_REMOTE_PATH = "/v1/internal/query/execute-remote";

/** The datacenters a query with no healthy local instance tries, in order (Explain shows it). */
export function failoverPlan(ctx: RouteContext, query: PreparedQueryDefinition): string[] {
  return planFailover(query.Service.Failover, ctx.datacenter, ctx.datacenters());
}

export interface RemoteExecution {
  readonly limit: number;
  readonly connect: boolean;
  /** The token the query runs with there: its own, else the caller's. */
  readonly token: string;
  readonly log: (dc: string, reason: string) => void;
}

/**
 * Consul's query failover: the local answer had no nodes, so each datacenter of the plan is asked in turn,
 * once, until one has nodes. `Failovers` counts the datacenters asked (an error counts and moves on), and
 * the answer is the last datacenter's that answered (the local one's if none did).
 */
export async function executeWithFailover(
  ctx: RouteContext,
  query: PreparedQueryDefinition,
  local: ExecuteResult,
  remote: RemoteExecution,
): Promise<string> {
  const plan = failoverPlan(ctx, query);
  if (local.count > 0 || plan.length === 0) return local.body;
  let answer: Record<string, JsonValue> | undefined;
  let failovers = 0;
  for (const dc of plan) {
    failovers++;
    try {
      const body = await executeIn(ctx, dc, query, remote);
      answer = body;
      if (Array.isArray(body.Nodes) && body.Nodes.length > 0) break;
    } catch (err) {
      remote.log(dc, (err as Error).message);
    }
  }
  if (answer === undefined) return local.body.replace(/"Failovers":0}$/, `"Failovers":${failovers}}`);
  return writeJson({ ...answer, Failovers: failovers });
}

async function executeIn(
  ctx: RouteContext,
  dc: string,
  query: PreparedQueryDefinition,
  remote: RemoteExecution,
): Promise<Record<string, JsonValue>> {
  const params = new URLSearchParams();
  if (remote.limit > 0) params.set("limit", String(remote.limit));
  if (remote.connect) params.set("connect", "true");
  const q = params.size > 0 ? `?${params}` : "";
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (remote.token) headers["X-Consul-Token"] = remote.token;
  const request = new Request(`http://remote${EXECUTE_REMOTE_PATH}${q}`, {
    method: "POST",
    headers,
    // `near` never travels: sorting by distance to a node only makes sense where the node is.
    body: writeJson({ ...query, Service: { ...query.Service, Near: "" } }),
  });
  const pending = ctx.forwardDatacenter(dc, request);
  if (pending === undefined) throw new Error("No path to datacenter");
  const response = await pending;
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${response.status} ${text.trim()}`);
  const body = readJson(text);
  if (typeof body !== "object" || body === null || Array.isArray(body) || typeof body === "bigint") {
    throw new Error("malformed answer");
  }
  return body as Record<string, JsonValue>;
}
