/**
 * Watch keys name what a read depended on. They are strings tagged by their first character:
 * `k` an exact KV key, `p` a KV prefix (both over `ns \0 key`), `c` a named channel (a table or a finer
 * slice of one, such as the instances of one service).
 */
export type WatchKey = string;

/** What a read saw: the view index it was taken at and the keys that would change its answer. */
export interface WatchSet {
  readonly index: number;
  readonly keys: readonly WatchKey[];
}

export const kvKeyWatch = (compositeKey: string): WatchKey => `k${compositeKey}`;
export const kvPrefixWatch = (compositePrefix: string): WatchKey => `p${compositePrefix}`;
export const channelWatch = (channel: string): WatchKey => `c${channel}`;

/** Channel names. Catalog reads watch a table, a service name or a node. */
export const Channels = {
  nodes: "nodes",
  services: "services",
  checks: "checks",
  sessions: "sessions",
  coordinates: "coordinates",
  serviceName: (ns: string, name: string) => `svc\u0000${ns}\u0000${name}`,
  node: (name: string) => `node\u0000${name}`,
} as const;
