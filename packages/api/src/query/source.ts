import { isIP } from "node:net";
import type { Context } from "hono";
import { nodeRequest } from "../http/env.js";

/** IPv4 peers arrive on dual-stack sockets as `::ffff:a.b.c.d`; Go prints those as plain IPv4. */
function plain(ip: string): string {
  return ip.startsWith("::ffff:") && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

/**
 * The request's source IP for `near=_ip`, as Consul reads it: the first X-Forwarded-For entry when it is
 * an IP, else the peer's address; "" when neither is known.
 */
export function sourceAddress(c: Context): string {
  const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim() ?? "";
  if (forwarded !== "" && isIP(forwarded) !== 0) return plain(forwarded);
  const incoming = nodeRequest(c.env);
  const peer = incoming?.socket.remoteAddress ?? "";
  return isIP(peer) !== 0 ? plain(peer) : "";
}
