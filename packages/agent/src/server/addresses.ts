import { networkInterfaces } from "node:os";

/**
 * The address other servers reach this one at: `advertise_addr`, else the bind address, else (bound to all
 * interfaces) the first private IPv4 address, as Consul picks it.
 */
export function advertiseHost(bindAddr: string, advertiseAddr: string | undefined): string {
  if (advertiseAddr) return advertiseAddr;
  if (bindAddr !== "0.0.0.0" && bindAddr !== "::") return bindAddr;
  const candidates = Object.values(networkInterfaces())
    .flat()
    .filter((i) => i !== undefined && i.family === "IPv4" && !i.internal);
  const isPrivate = (a: string) => /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(a);
  const chosen = candidates.find((i) => isPrivate(i!.address)) ?? candidates[0];
  return chosen?.address ?? "127.0.0.1";
}

/** `host:port`, bracketing IPv6 hosts. */
export function hostPort(host: string, port: number): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]:${port}` : `${host}:${port}`;
}
