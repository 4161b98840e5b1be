/**
 * The endpoints Consul's agent cache serves for `?cached` requests, and how: "refresh" types are kept
 * current by a background blocking query (catalog services and service nodes, health of a service,
 * the discovery chain), "simple" ones are fetched again only when the client's Cache-Control asks
 * (prepared query execution, the datacenter list). Any other endpoint is served uncached, `?cached` or not.
 */

export type CacheKind = "refresh" | "simple";

const REFRESH_GET = [
  /^\/v1\/catalog\/services$/,
  /^\/v1\/catalog\/(?:service|connect)\/.+$/,
  /^\/v1\/health\/(?:service|connect|ingress)\/.+$/,
  /^\/v1\/discovery-chain\/.+$/,
];
const SIMPLE_GET = [/^\/v1\/query\/[^/]+\/execute$/, /^\/v1\/catalog\/datacenters$/];

export function cacheKind(method: string, path: string): CacheKind | undefined {
  if (method === "GET") {
    if (REFRESH_GET.some((re) => re.test(path))) return "refresh";
    if (SIMPLE_GET.some((re) => re.test(path))) return "simple";
    return undefined;
  }
  // The discovery chain takes its overrides in a POST body; Consul caches those reads too.
  if (method === "POST" && /^\/v1\/discovery-chain\/.+$/.test(path)) return "refresh";
  return undefined;
}
