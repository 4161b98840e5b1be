import { HttpError } from "../http/errors.js";

/**
 * `?dc=` naming another datacenter is forwarded there by the agent before the API sees it (see the agent's
 * WAN forwarder); what still arrives here names a datacenter no route leads to, answered as Consul does.
 */
export function requireLocalDatacenter(requested: string | undefined, local: string): void {
  if (requested && requested !== local) throw new HttpError(500, "No path to datacenter");
}

/**
 * Endpoints that never read `dc`, as in Consul: the agent's own (`/v1/agent/...`), the events this agent
 * received, the datacenter lists themselves and the gossip keyring. `?dc=` on them is ignored.
 */
const IGNORES_DC = [
  "/v1/agent",
  "/v1/event/list",
  "/v1/catalog/datacenters",
  "/v1/coordinate/datacenters",
  "/v1/operator/keyring",
];

export function ignoresDatacenter(path: string): boolean {
  return IGNORES_DC.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** The path and the `dc` a request URL names (undefined when it names none), read without a URL parse. */
export function requestedDatacenter(url: string): { path: string; dc: string | undefined } {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const q = url.indexOf("?", start);
  const path = q < 0 ? url.slice(start) : url.slice(start, q);
  if (q < 0 || !url.includes("dc=", q)) return { path, dc: undefined };
  return { path, dc: new URLSearchParams(url.slice(q + 1)).get("dc") || undefined };
}
