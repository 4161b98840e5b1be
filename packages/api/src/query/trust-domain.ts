import { createHash } from "node:crypto";

/**
 * The trust domain chain targets name (`<cluster id>.consul`). Consul's cluster ID comes from its Connect CA;
 * Cairn has none yet, so the ID is a UUID derived from the datacenter name: the same on every server of the
 * cluster and across restarts, with no state to replicate.
 */
export function trustDomainFor(datacenter: string): string {
  const hex = createHash("sha256").update(`cairn-cluster\u0000${datacenter}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}.consul`;
}
