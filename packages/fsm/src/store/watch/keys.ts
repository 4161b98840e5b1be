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
