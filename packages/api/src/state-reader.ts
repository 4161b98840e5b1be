import type { StateStore, StateView, WatchRegistry } from "@cairn/fsm";

/** What a read may ask of the replica's watch registry: waiting for a change, never announcing one. */
export type StateWatches = Pick<WatchRegistry, "listen" | "wait" | "waiting">;

/**
 * The local replica as everything above the write path sees it: consistent views (one per applied index),
 * the applied index, the index of the ACL tables, and watches for blocking queries. Nothing reachable from
 * it changes the state: every write goes through `ClusterBackend.apply`.
 */
export interface StateReader {
  /** Last applied Raft index. */
  readonly index: number;
  /** Highest change to what token resolution depends on (see StateStore.aclIndex). */
  readonly aclIndex: number;
  /** A consistent read view at the current index: the snapshot a consistent read answers from. */
  view(): StateView;
  readonly watches: StateWatches;
}

/**
 * The read-only face of `store`: its owner keeps the store itself (and with it apply and restore), and hands
 * this out, so no holder of the reader can write, whatever it casts it to.
 */
export function stateReader(store: StateStore): StateReader {
  const watches: StateWatches = {
    listen: (watch, wake) => store.watches.listen(watch, wake),
    wait: (watch, signal) => store.watches.wait(watch, signal),
    get waiting() {
      return store.watches.waiting;
    },
  };
  return {
    get index() {
      return store.index;
    },
    get aclIndex() {
      return store.aclIndex;
    },
    view: () => store.view(),
    watches,
  };
}
