import { type ApplyResult, type Command, encodeCommand, type Session, StateStore } from "@cairn/fsm";
import type { ClusterBackend, LeaderContact, SnapshotArchive } from "./backend.js";
import { type StateReader, stateReader } from "./state-reader.js";

const LEADER: LeaderContact = { knownLeader: true, lastContactMs: 0 };

/**
 * A real single-node backend: every command is encoded exactly as it would be for the Raft log and applied
 * straight to an in-memory StateStore at the next index. It is always the leader, so every read mode is
 * served at once. Session TTL timers are left to whoever runs the node (renew only confirms the session).
 */
export class LocalBackend implements ClusterBackend {
  readonly store: StateReader;
  readonly #store: StateStore;
  #nextIndex: number;

  constructor(
    private readonly address = "127.0.0.1:8300",
    store = new StateStore(),
  ) {
    this.#store = store;
    this.store = stateReader(store);
    this.#nextIndex = store.index + 1;
  }

  async apply(command: Command): Promise<ApplyResult> {
    const index = this.#nextIndex++;
    return this.#store.apply(index, encodeCommand(command));
  }

  async readBarrier(): Promise<LeaderContact> {
    return LEADER;
  }

  async renewSession(id: string, ns: string): Promise<Session | null> {
    return this.store.view().sessionGet(id, ns).value ?? null;
  }

  async leader(): Promise<string> {
    return this.address;
  }

  async peers(): Promise<string[]> {
    return [this.address];
  }

  async snapshotSave(): Promise<SnapshotArchive> {
    const view = this.store.view();
    return { index: view.index, data: toAsync(view.snapshot()) };
  }

  async snapshotRestore(archive: AsyncIterable<Uint8Array>): Promise<void> {
    await this.#store.restore(archive);
    // Later writes must land above whatever index the snapshot carried.
    this.#nextIndex = Math.max(this.#nextIndex, this.#store.index + 1);
  }
}

/** Frames are copied: the encoder may reuse its buffer for the next frame while this one is still queued. */
async function* toAsync(frames: Iterable<Uint8Array>): AsyncIterable<Uint8Array> {
  for (const frame of frames) yield Uint8Array.prototype.slice.call(frame);
}
