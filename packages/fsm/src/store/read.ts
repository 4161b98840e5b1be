import { DEFAULT_NAMESPACE } from "./keys.js";
import type { ReadMemo } from "./memo.js";
import type { Tables } from "./tables.js";
import { channelWatch, type WatchSet } from "./watch/keys.js";

/** A read's answer, the index for X-Service-Index (never 0) and what to watch for a blocking query. */
export interface Read<T> {
  readonly value: T;
  readonly index: number;
  readonly watch: WatchSet;
}

/** The tables of one read view and the index it was taken at: what every area's reads run over. */
export interface ViewScope {
  readonly t: Tables;
  readonly index: number;
  /** The store's memo of expensive reads; absent on views that must not share one (a transaction's). */
  readonly memo?: ReadMemo;
}

export function readAt<T>(scope: ViewScope, value: T, index: number, ...keys: string[]): Read<T> {
  return { value, index: Math.max(index, 1), watch: { index: scope.index, keys } };
}

/** A read that a change to one named channel answers. */
export function channelRead<T>(scope: ViewScope, value: T, index: number, channel: string): Read<T> {
  return readAt(scope, value, index, channelWatch(channel));
}

/** `*` matches every namespace; no namespace means the default one. */
export const inNamespace = (want: string | undefined, ns: string): boolean =>
  want === "*" || (want ?? DEFAULT_NAMESPACE) === ns;
