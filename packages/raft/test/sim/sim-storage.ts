import type { Entry, HardState, RestoreState, SnapshotMeta, TermRun } from "../../src/core/types.js";
import type { DurableChanges, SnapshotFileInfo, SnapshotWriter, Storage } from "../../src/node/ports.js";

/** What survives a crash: exactly what was fsynced. Snapshot files are in `files`, by name. */
export interface Disk {
  hard: HardState;
  snapshot: { meta: SnapshotMeta; file: SnapshotFileInfo } | null;
  /** The log, in order: after the snapshot, or from a little before it (entries a compaction kept). */
  entries: Entry[];
  addresses: Record<string, string>;
  files: Map<string, Uint8Array>;
}

export function emptyDisk(): Disk {
  return {
    hard: { term: 0, vote: null, commit: 0 },
    snapshot: null,
    entries: [],
    addresses: {},
    files: new Map(),
  };
}

/** The index before the log's first entry. */
function logOffset(d: Disk): number {
  return d.entries.length > 0 ? d.entries[0]!.index - 1 : (d.snapshot?.meta.index ?? 0);
}

/** The term of entry `index` in the durable log, if it holds it. */
export function durableEntryTerm(d: Disk, index: number): number | undefined {
  const offset = logOffset(d);
  return index > offset ? d.entries[index - offset - 1]?.term : undefined;
}

export function durableLast(d: Disk): number {
  return d.entries[d.entries.length - 1]?.index ?? d.snapshot?.meta.index ?? 0;
}

/** Newest entries handed over at start; the rest is read back as RaftStorage's are (see loadLogShape). */
const TAIL = 4;

/**
 * What a restarted process is given, shaped as RaftStorage.open shapes it: the log's bounds and its tail.
 * As open, it drops the entries a compaction kept before the snapshot first.
 */
function restoreOf(d: Disk): RestoreState {
  const base = d.snapshot?.meta.index ?? 0;
  d.entries = d.entries.filter((e) => e.index > base);
  const terms: TermRun[] = [];
  for (const e of d.entries) if (terms.at(-1)?.term !== e.term) terms.push({ index: e.index, term: e.term });
  return {
    hardState: { ...d.hard },
    snapshot: d.snapshot?.meta ?? null,
    entries: d.entries.slice(-TAIL),
    bounds: { lastIndex: durableLast(d), terms, confs: d.entries.filter((e) => e.kind === "conf") },
  };
}

/** The simulation's part in a write: when its fsync completes, and whether the process dies around it. */
export interface DiskWorld {
  /** Schedules the fsync of a write; `land` makes it durable. Resolves once durable, or never (a crash). */
  sync(land: () => void): Promise<void>;
  /** Log matching is checked on what reaches the disk: `entries` follow an entry of `prevTerm` (-1: none). */
  persisted(entries: Entry[], prevTerm: number): void;
}

function snapshotFileName(meta: Pick<SnapshotMeta, "index" | "term">): string {
  return `snapshot-${meta.term}-${meta.index}`;
}

/**
 * The Storage port over a simulated disk, for one process's life. Nothing written is durable (or visible
 * after a crash) before its simulated fsync; the promise resolves at that moment. Snapshot files are kept
 * whole in memory, which keeps the simulated I/O cheap.
 */
export class SimStorage implements Storage {
  readonly restored: RestoreState;
  readonly stats = { syncedWrites: 0, entriesWritten: 0 };
  private readonly received = new Map<string, SnapshotFileInfo>();

  constructor(
    private readonly disk: Disk,
    private readonly world: DiskWorld,
  ) {
    const d = disk;
    if (d.hard.commit > durableLast(d)) {
      throw new Error(`durable commit ${d.hard.commit} beyond the durable log (${durableLast(d)})`);
    }
    this.restored = restoreOf(d);
    // As RaftStorage.open: files other than the current snapshot's are leftovers of the previous life.
    for (const name of d.files.keys()) if (name !== d.snapshot?.file.name) d.files.delete(name);
  }

  get addresses(): Record<string, string> {
    return this.disk.addresses;
  }

  get snapshot(): { meta: SnapshotMeta; path: string } | null {
    const s = this.disk.snapshot;
    return s && { meta: s.meta, path: s.file.name };
  }

  async entries(lo: number, hi: number, maxBytes: number): Promise<Entry[]> {
    const d = this.disk;
    const offset = logOffset(d);
    if (lo <= offset) return [];
    const out: Entry[] = [];
    let bytes = 0;
    for (const e of d.entries.slice(lo - offset - 1, hi - offset - 1)) {
      bytes += e.data.length;
      if (out.length > 0 && bytes > maxBytes) break;
      out.push(e);
    }
    return out;
  }

  save(changes: DurableChanges): Promise<void> {
    const { entries, snapshot, hardState } = changes;
    if (!snapshot && entries.length === 0 && !hardState) return Promise.resolve();
    const file = snapshot && this.receivedFile(snapshot);
    const d = this.disk;
    const base = snapshot ? snapshot.index : (d.snapshot?.meta.index ?? 0);
    const last = snapshot ? snapshot.index : durableLast(d);
    const head = entries[0];
    if (head && (head.index <= base || head.index > last + 1)) {
      throw new Error(`entries from ${head.index} do not attach to the log (${base}, ${last}]`);
    }
    this.stats.syncedWrites++;
    this.stats.entriesWritten += entries.length;
    return this.world.sync(() => {
      if (snapshot && file) {
        this.replaceSnapshot({ meta: snapshot, file });
        d.entries = [];
      }
      if (head) {
        const offset = logOffset(d);
        d.entries.length = head.index - offset - 1;
        const prevTerm = d.entries[d.entries.length - 1]?.term ?? d.snapshot?.meta.term ?? 0;
        for (const e of entries) d.entries.push(e);
        this.world.persisted(entries, prevTerm);
      }
      if (hardState) d.hard = hardState;
    });
  }

  async createSnapshotWriter(meta: Pick<SnapshotMeta, "index" | "term">): Promise<SnapshotWriter> {
    const chunks: Uint8Array[] = [];
    const name = snapshotFileName(meta);
    const files = this.disk.files;
    return {
      write: async (chunk) => {
        chunks.push(chunk);
      },
      commit: async () => {
        const bytes = Buffer.concat(chunks);
        files.set(name, bytes);
        return { name, size: bytes.byteLength, crc: 0 };
      },
      abort: async () => {},
    };
  }

  noteReceivedSnapshot(info: SnapshotFileInfo): void {
    this.received.set(info.name, info);
  }

  compact(meta: SnapshotMeta, file: SnapshotFileInfo, dropThrough: number): Promise<void> {
    const d = this.disk;
    const through = Math.min(dropThrough, meta.index);
    return this.world.sync(() => {
      this.replaceSnapshot({ meta, file });
      d.entries = d.entries.filter((e) => e.index > through);
    });
  }

  async discardSnapshotFile(file: SnapshotFileInfo): Promise<void> {
    if (file.name !== this.disk.snapshot?.file.name) this.disk.files.delete(file.name);
  }

  async saveAddresses(addresses: Record<string, string>): Promise<void> {
    this.disk.addresses = { ...addresses };
  }

  async close(): Promise<void> {}

  private receivedFile(meta: SnapshotMeta): SnapshotFileInfo {
    const name = snapshotFileName(meta);
    const current = this.disk.snapshot?.file;
    const file = this.received.get(name) ?? (current?.name === name ? current : undefined);
    if (!file) throw new Error(`snapshot ${name} was never received`);
    return file;
  }

  /** As RaftStorage: the superseded file goes (others may belong to transfers still under way). */
  private replaceSnapshot(record: NonNullable<Disk["snapshot"]>): void {
    const previous = this.disk.snapshot;
    this.received.delete(record.file.name);
    this.disk.snapshot = record;
    if (previous && previous.file.name !== record.file.name) this.disk.files.delete(previous.file.name);
  }
}
