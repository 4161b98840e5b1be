import { ConfigError } from "./source.js";

/** `unix_sockets { mode user group }`: who may use the agent's unix domain sockets. */
export interface UnixSocketSettings {
  /** Permission bits (`mode = "0700"`, octal as Consul reads it); unset keeps what the umask gives. */
  readonly mode: number | undefined;
  /** Owner, a numeric ID or a user name. */
  readonly user: string | undefined;
  /** Group, numeric only, as Consul accepts it. */
  readonly group: number | undefined;
}

export const UNIX_PREFIX = "unix://";

/** The socket path of a `unix:///path` listen address, or undefined for a network address. */
export function unixSocketPath(address: string): string | undefined {
  return address.startsWith(UNIX_PREFIX) ? address.slice(UNIX_PREFIX.length) : undefined;
}

export function unixSocketSettings(
  v: { mode?: string; user?: string; group?: string } = {},
): UnixSocketSettings {
  const mode = v.mode === undefined || v.mode === "" ? undefined : v.mode.trim();
  if (mode !== undefined && !/^[0-7]{1,4}$/.test(mode))
    fail(
      `unix_sockets.mode: invalid mode specified: ${JSON.stringify(v.mode)} (expected octal, such as "0700")`,
    );
  const group = v.group === undefined || v.group === "" ? undefined : v.group.trim();
  if (group !== undefined && !/^\d+$/.test(group))
    fail(
      `unix_sockets.group: invalid group specified: ${JSON.stringify(v.group)} (expected a numeric group ID)`,
    );
  return {
    mode: mode === undefined ? undefined : Number.parseInt(mode, 8),
    user: v.user === "" ? undefined : v.user?.trim(),
    group: group === undefined ? undefined : Number(group),
  };
}

/** Unix sockets serve HTTP(S) only, as in Consul; a socket path must be absolute and not empty. */
export function checkUnixAddresses(addresses: Readonly<Record<"http" | "https" | "dns", string>>): void {
  for (const address of addresses.dns.split(/\s+/)) {
    if (unixSocketPath(address) !== undefined) fail("addresses.dns: DNS address cannot be a unix socket");
  }
  for (const key of ["http", "https"] as const) {
    for (const address of addresses[key].split(/\s+/)) {
      const path = unixSocketPath(address);
      if (path !== undefined && !path.startsWith("/"))
        fail(`addresses.${key}: expected unix:///absolute/path, got ${JSON.stringify(address)}`);
    }
  }
}

function fail(message: string): never {
  throw new ConfigError(message);
}
