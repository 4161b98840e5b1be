import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { Level } from "level";
import type { Logger } from "pino";
import type { ConfState, Entry, HardState, LogBounds, RestoreState, SnapshotMeta } from "../core/types.js";
import { type ConfigurationRewrite, planConfigurationRewrite } from "./configuration-rewrite.js";
import { StorageCorruptionError, StorageVersionError } from "./errors.js";
import { type Db, indexConfEntries, loadLogShape, readEntries } from "./log-reads.js";
import {
  CONF_RANGE,
  confKey,
  decodeRecord,
  ENTRY_RANGE,
  encodeEntry,
  encodeRecord,
  entryKey,
  FORMAT_VERSION,
  isAddressBook,
  isHardState,
  isSnapshotRecord,
  KEY_ADDRESSES,
  KEY_HARD_STATE,
  KEY_SNAPSHOT,
  KEY_VERSION,
  type SnapshotRecord,
  UPGRADABLE_VERSIONS,
} from "./records.js";
import {
  removeSnapshotFilesExcept,
  type SnapshotFileInfo,
  SnapshotFileWriter,
  verifySnapshotFile,
} from "./snapshot-files.js";

/** What one Ready asks to make durable, written as one fsynced batch. */
export interface DurableChanges {
  hardState?: HardState;
  entries: Entry[];
  /** A snapshot installed from the leader: it replaces the whole log. Its file must have been received. */
  snapshot?: SnapshotMeta;
}

const EMPTY_HARD_STATE: HardState = { term: 0, vote: null, commit: 0 };
const EMPTY = Buffer.alloc(0);

function sameTermAndVote(a: HardState, b: HardState): boolean {
  return a.term === b.term && a.vote === b.vote;
}

export function snapshotFileName(meta: Pick<SnapshotMeta, "index" | "term">): string {
  return `snapshot-${meta.term}-${meta.index}.bin`;
}

/**
 * The durable half of a Raft server: the log since the last snapshot, the hard state, the snapshot record and
 * its file, and the peer address book. Layout under `dir`: `log/` (LevelDB), `snapshots/` (one current file).
 *
 * This store is written as the core produces Readys. `open` reads only the log's shape and newest entries (see
 * loadLogShape), so a restart costs the same at any log length; older entries are read back by `entries` when
 * the core asks for them (Ready's `fetch`). What does not verify stops the server, except a torn last entry
 * (the tail of a write that never completed), which open drops.
 */
export class RaftStorage {
  private first: number;
  private last: number;
  private current: SnapshotRecord | null;
  /** Indexes of the conf entries in the log, in order (few: one per membership change since the snapshot). */
  private confIndexes: number[];
  /** The hard state last written. */
  private durable: HardState;
  /** Fsynced log writes and the entries they carried since open: the group-commit ratio. */
  readonly stats = { syncedWrites: 0, entriesWritten: 0 };
  /** Range deletions of compacted entries still running (dropEntries). */
  private clearing: Promise<void> = Promise.resolve();
  /** Files received from peers and committed, not yet recorded as the current snapshot. */
  private readonly received = new Map<string, SnapshotFileInfo>();

  private constructor(
    private readonly db: Db,
    readonly logDir: string,
    readonly snapshotDir: string,
    readonly restored: RestoreState & { bounds: LogBounds },
    readonly addresses: Record<string, string>,
    snapshot: SnapshotRecord | null,
    confIndexes: number[],
    private readonly logger: Logger,
  ) {
    this.current = snapshot;
    this.confIndexes = confIndexes;
    this.durable = restored.hardState;
    const base = snapshot?.meta.index ?? 0;
    this.first = base + 1;
    this.last = restored.bounds.lastIndex;
  }

  static async open(dir: string, logger: Logger): Promise<RaftStorage> {
    const logDir = join(dir, "log");
    const snapshotDir = join(dir, "snapshots");
    await mkdir(snapshotDir, { recursive: true });
    const db: Db = new Level<Buffer, Buffer>(logDir, { keyEncoding: "buffer", valueEncoding: "buffer" });
    try {
      await db.open();
    } catch (err) {
      const cause = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
      throw new StorageCorruptionError(logDir, `cannot open the log database: ${cause}`);
    }
    try {
      const loaded = await load(db, logDir, snapshotDir, logger);
      await removeSnapshotFilesExcept(snapshotDir, loaded.snapshot?.file.name);
      return new RaftStorage(
        db,
        logDir,
        snapshotDir,
        loaded.restored,
        loaded.addresses,
        loaded.snapshot,
        loaded.confIndexes,
        logger,
      );
    } catch (err) {
      await db.close();
      throw err;
    }
  }

  get firstIndex(): number {
    return this.first;
  }

  /** The last index written (the log's durable tail once the write that put it there resolved). */
  get lastIndex(): number {
    return this.last;
  }

  /** The hard state last written; its term and vote are always fsynced. */
  get hardState(): HardState {
    return this.durable;
  }

  /** The current snapshot and the path of its file, if any. */
  get snapshot(): { meta: SnapshotMeta; path: string } | null {
    return this.current && { meta: this.current.meta, path: join(this.snapshotDir, this.current.file.name) };
  }

  /**
   * Durable entries [lo, hi), at least one if any, stopping once `maxBytes` of payload is reached: the answer to
   * a Ready's `fetch`. None if lo was compacted meanwhile.
   */
  async entries(lo: number, hi: number, maxBytes: number): Promise<Entry[]> {
    if (lo < this.first) return [];
    return readEntries(this.db, this.logDir, lo, Math.min(hi, this.last + 1), maxBytes);
  }

  /** Makes one Ready durable in a single batch, fsynced unless it only moves the commit index. */
  async save(changes: DurableChanges): Promise<void> {
    const { entries, snapshot, hardState: hs } = changes;
    if (!snapshot && entries.length === 0 && !hs) return;
    const installed = snapshot && this.snapshotRecord(snapshot);
    // A snapshot from the leader replaces the whole log; entries then continue from it.
    const first = snapshot ? snapshot.index + 1 : this.first;
    let last = snapshot ? snapshot.index : this.last;
    const head = entries[0];
    if (head && (head.index < first || head.index > last + 1)) {
      throw new Error(`entries from ${head.index} do not attach to the log [${first}, ${last}]`);
    }
    // Chained rather than array batches: the array form costs ~20x more CPU per operation here.
    const batch = this.db.batch();
    let confIndexes = this.confIndexes;
    if (installed) {
      batch.put(KEY_SNAPSHOT, encodeRecord(installed));
      for (let i = this.first; i <= this.last; i++) batch.del(entryKey(i));
      for (const i of confIndexes) batch.del(confKey(i));
      confIndexes = [];
    }
    if (head) {
      const newLast = head.index + entries.length - 1;
      // Entries past the new tail conflicted with the leader's log; the rest are overwritten below.
      for (let i = newLast + 1; i <= last; i++) batch.del(entryKey(i));
      const replaced = confIndexes.filter((i) => i >= head.index);
      for (const i of replaced) batch.del(confKey(i));
      if (replaced.length > 0) confIndexes = confIndexes.filter((i) => i < head.index);
      for (const e of entries) {
        batch.put(entryKey(e.index), encodeEntry(e));
        if (e.kind === "conf") {
          batch.put(confKey(e.index), EMPTY);
          if (confIndexes === this.confIndexes) confIndexes = [...confIndexes];
          confIndexes.push(e.index);
        }
      }
      last = newLast;
    }
    if (hs) batch.put(KEY_HARD_STATE, encodeRecord(hs));
    // Entries, a snapshot, a new term or vote must be on disk before anything is sent that depends on them.
    // A commit index alone need not be: after a crash it is learnt again from the leader.
    const sync =
      entries.length > 0 ||
      installed !== undefined ||
      (hs !== undefined && !sameTermAndVote(hs, this.durable));
    await batch.write({ sync });
    this.first = first;
    this.last = last;
    this.confIndexes = confIndexes;
    if (hs) this.durable = hs;
    if (sync) this.stats.syncedWrites++;
    this.stats.entriesWritten += entries.length;
    if (installed) await this.replaceSnapshot(installed);
  }

  /** Opens a writer for the file of snapshot `meta`, whether taken locally or received from a peer. */
  createSnapshotWriter(meta: Pick<SnapshotMeta, "index" | "term">): Promise<SnapshotFileWriter> {
    return SnapshotFileWriter.create(this.snapshotDir, snapshotFileName(meta));
  }

  /** Notes a committed snapshot file from a peer, so a later `save` with its meta can record it. */
  noteReceivedSnapshot(info: SnapshotFileInfo): void {
    this.received.set(info.name, info);
  }

  /**
   * Records a snapshot this server took of its own state machine and drops the log entries through
   * `dropThrough` (<= the snapshot's index; the rest it covers stay for followers a little behind).
   * `meta` comes from the core's `compact`, `file` from the finished writer.
   */
  async compact(meta: SnapshotMeta, file: SnapshotFileInfo, dropThrough: number): Promise<void> {
    const through = Math.min(dropThrough, meta.index);
    const record: SnapshotRecord = { meta, file };
    const batch = this.db.batch().put(KEY_SNAPSHOT, encodeRecord(record));
    const covered = this.confIndexes.filter((i) => i <= through);
    for (const i of covered) batch.del(confKey(i));
    await batch.write({ sync: true });
    if (covered.length > 0) this.confIndexes = this.confIndexes.filter((i) => i > through);
    // Only entries that exist and are committed (so never written again) go: a range delete still running
    // must not meet an append.
    const [from, upTo] = [this.first, Math.min(through, this.last)];
    this.first = Math.max(this.first, through + 1);
    this.last = Math.max(this.last, meta.index);
    if (upTo >= from) this.dropEntries(from, upTo);
    await this.replaceSnapshot(record);
  }

  /**
   * Deletes the entries [from, through] by range, in LevelDB's own thread, neither on the event loop nor
   * ahead of the next fsynced append. One by one in the snapshot's batch, a compaction's ~16,000 deletes
   * held the event loop and every write queued behind them. Safe unsynced and unordered: nothing reads
   * below `first`, and a restart drops every entry at or below the recorded snapshot before reading the log.
   */
  private dropEntries(from: number, through: number): void {
    const cleared = this.db.clear({ gte: entryKey(from), lte: entryKey(through) });
    this.clearing = Promise.all([this.clearing, cleared]).then(
      () => undefined,
      (err: Error) => this.logger.warn({ err: err.message, through }, "could not drop compacted log entries"),
    );
  }

  /** Deletes a finished snapshot file that will not be recorded (a newer snapshot overtook it). */
  async discardSnapshotFile(file: SnapshotFileInfo): Promise<void> {
    if (file.name === this.current?.file.name) return;
    await rm(join(this.snapshotDir, file.name), { force: true });
  }

  async saveAddresses(addresses: Record<string, string>): Promise<void> {
    await this.db.put(KEY_ADDRESSES, encodeRecord(addresses), { sync: true });
  }

  /**
   * Quorum-loss recovery, done offline before a node starts on this store: makes `conf` the configuration
   * everywhere the log records one (see `planConfigurationRewrite`) and merges `addresses` into the address
   * book, in one fsynced batch, so a crash leaves either the old state or the new one. `restored` keeps
   * describing what `open` read; close the store afterwards and open it again to start.
   */
  async replaceConfiguration(
    conf: ConfState,
    addresses: Record<string, string>,
  ): Promise<ConfigurationRewrite> {
    const plan = planConfigurationRewrite(this.restored, conf);
    const batch = this.db.batch();
    for (const e of plan.entries) batch.put(entryKey(e.index), encodeEntry(e)).put(confKey(e.index), EMPTY);
    const installed = plan.snapshot && this.current && { meta: plan.snapshot, file: this.current.file };
    if (installed) batch.put(KEY_SNAPSHOT, encodeRecord(installed));
    if (plan.hardState) batch.put(KEY_HARD_STATE, encodeRecord(plan.hardState));
    batch.put(KEY_ADDRESSES, encodeRecord({ ...this.addresses, ...addresses }));
    await batch.write({ sync: true });
    if (installed) this.current = installed;
    if (plan.hardState) this.durable = plan.hardState;
    this.last = Math.max(this.last, plan.entries.at(-1)?.index ?? 0);
    for (const e of plan.entries) if (!this.confIndexes.includes(e.index)) this.confIndexes.push(e.index);
    return plan;
  }

  async close(): Promise<void> {
    await this.clearing;
    await this.db.close();
  }

  private snapshotRecord(meta: SnapshotMeta): SnapshotRecord {
    const name = snapshotFileName(meta);
    const file =
      this.received.get(name) ?? (this.current?.file.name === name ? this.current.file : undefined);
    if (!file) throw new Error(`snapshot ${name} was never received`);
    return { meta, file };
  }

  private async replaceSnapshot(record: SnapshotRecord): Promise<void> {
    this.received.delete(record.file.name);
    const previous = this.current;
    this.current = record;
    // Only the superseded file goes: temporary files may belong to transfers still under way.
    if (previous && previous.file.name !== record.file.name) {
      await rm(join(this.snapshotDir, previous.file.name), { force: true }).catch((err: Error) =>
        this.logger.warn({ err: err.message }, "could not remove the superseded snapshot file"),
      );
    }
  }
}

interface Loaded {
  restored: RestoreState & { bounds: LogBounds };
  snapshot: SnapshotRecord | null;
  addresses: Record<string, string>;
  confIndexes: number[];
}

async function load(db: Db, logDir: string, snapshotDir: string, logger: Logger): Promise<Loaded> {
  const version = (await db.get(KEY_VERSION))?.toString();
  if (version === undefined) {
    const anything = await db.keys({ limit: 1 }).all();
    if (anything.length > 0) throw new StorageVersionError(logDir, "none", FORMAT_VERSION);
    await db.put(KEY_VERSION, Buffer.from(String(FORMAT_VERSION)), { sync: true });
  } else if (UPGRADABLE_VERSIONS.includes(version)) {
    logger.info({ file: logDir, from: version, to: FORMAT_VERSION }, "upgrading the log format");
    await indexConfEntries(db);
    await db.put(KEY_VERSION, Buffer.from(String(FORMAT_VERSION)), { sync: true });
  } else if (version !== String(FORMAT_VERSION)) {
    throw new StorageVersionError(logDir, version, FORMAT_VERSION);
  }

  const hardState = await readRecord(db, KEY_HARD_STATE, logDir, "hard state", isHardState);
  const snapshot = await readRecord(db, KEY_SNAPSHOT, logDir, "snapshot record", isSnapshotRecord);
  const addresses = await readRecord(db, KEY_ADDRESSES, logDir, "address book", isAddressBook);
  if (snapshot) await verifySnapshotFile(snapshotDir, snapshot.file);

  const base = snapshot?.meta.index ?? 0;
  await dropTrailingEntries(db, base);
  const shape = await loadLogShape(db, logDir, base, logger);
  const hs = hardState ?? EMPTY_HARD_STATE;
  const last = shape.bounds.lastIndex;
  if (hs.commit > last) {
    throw new StorageCorruptionError(
      logDir,
      `commit index ${hs.commit} is past the last durable entry ${last}`,
    );
  }
  return {
    restored: { hardState: hs, snapshot: snapshot?.meta ?? null, entries: shape.tail, bounds: shape.bounds },
    snapshot: snapshot ?? null,
    addresses: addresses ?? {},
    confIndexes: shape.confIndexes,
  };
}

/**
 * Entries a compaction kept before the snapshot's index (trailing logs, for followers a little behind) go at
 * a restart: the log starts after the snapshot again, as the core restarts from it.
 */
async function dropTrailingEntries(db: Db, base: number): Promise<void> {
  if (base === 0) return;
  const batch = db.batch();
  let any = false;
  for await (const key of db.keys({ gte: ENTRY_RANGE.gte, lte: entryKey(base) })) {
    batch.del(key);
    any = true;
  }
  for await (const key of db.keys({ gte: CONF_RANGE.gte, lte: confKey(base) })) {
    batch.del(key);
    any = true;
  }
  if (any) await batch.write({ sync: true });
  else await batch.close();
}

async function readRecord<T>(
  db: Db,
  key: Buffer,
  logDir: string,
  what: string,
  isValid: (v: unknown) => v is T,
): Promise<T | undefined> {
  const value = await db.get(key);
  if (value === undefined) return undefined;
  let decoded: unknown;
  try {
    decoded = decodeRecord(value);
  } catch (err) {
    throw new StorageCorruptionError(logDir, `${what}: ${(err as Error).message}`);
  }
  if (!isValid(decoded)) throw new StorageCorruptionError(logDir, `${what} is malformed`);
  return decoded;
}
