import { HttpError } from "../http/errors.js";

/**
 * `?dc=` naming another datacenter would be forwarded there; Cairn knows only its own (no WAN federation
 * yet), so it answers as Consul does for a datacenter it has no route to.
 */
export function requireLocalDatacenter(requested: string | undefined, local: string): void {
  if (requested && requested !== local) throw new HttpError(500, "No path to datacenter");
}
