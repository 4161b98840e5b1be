import { createReadStream } from "node:fs";
import { type FileHandle, open, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { StorageCorruptionError } from "./errors.js";

/** What the log records about a snapshot file, so a later start can tell a complete file from a damaged one. */
export interface SnapshotFileInfo {
  name: string;
  size: number;
  crc: number;
}

/** Each writer gets its own temporary name, so two transfers of the same snapshot never share a file. */
let writers = 0;

/** Makes a rename (or unlink) in `dir` durable: the directory entry itself must reach the disk. */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes one snapshot file so that it either exists complete under its final name or not at all:
 * chunks go to a temporary name, which is fsynced, renamed and then the directory is fsynced.
 */
export class SnapshotFileWriter {
  private size = 0;
  private crc = 0;
  private done = false;

  private constructor(
    private readonly dir: string,
    private readonly name: string,
    private readonly temp: string,
    private readonly handle: FileHandle,
  ) {}

  static async create(dir: string, name: string): Promise<SnapshotFileWriter> {
    const temp = join(dir, `${name}.${++writers}.tmp`);
    return new SnapshotFileWriter(dir, name, temp, await open(temp, "w"));
  }

  async write(chunk: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < chunk.byteLength) {
      const { bytesWritten } = await this.handle.write(chunk, offset, chunk.byteLength - offset);
      offset += bytesWritten;
    }
    this.crc = crc32(chunk, this.crc);
    this.size += chunk.byteLength;
  }

  async commit(): Promise<SnapshotFileInfo> {
    this.done = true;
    await this.handle.sync();
    await this.handle.close();
    await rename(this.temp, join(this.dir, this.name));
    await fsyncDir(this.dir);
    return { name: this.name, size: this.size, crc: this.crc };
  }

  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.handle.close().catch(() => {});
    await rm(this.temp, { force: true });
  }
}

/** Checks a snapshot file against the size and checksum recorded when it was written. */
export async function verifySnapshotFile(dir: string, info: SnapshotFileInfo): Promise<void> {
  const path = join(dir, info.name);
  const st = await stat(path).catch(() => undefined);
  if (!st) throw new StorageCorruptionError(path, "snapshot file recorded in the log is missing");
  if (st.size !== info.size) {
    throw new StorageCorruptionError(
      path,
      `snapshot file is ${st.size} bytes, the log recorded ${info.size}`,
    );
  }
  let crc = 0;
  for await (const chunk of createReadStream(path)) crc = crc32(chunk as Buffer, crc);
  if (crc !== info.crc) throw new StorageCorruptionError(path, "snapshot file checksum mismatch");
}

/** Removes everything in `dir` except `keep`: unfinished temporary files and superseded snapshots. */
export async function removeSnapshotFilesExcept(dir: string, keep: string | undefined): Promise<void> {
  const names = await readdir(dir);
  const stale = names.filter((n) => n !== keep);
  await Promise.all(stale.map((n) => rm(join(dir, n), { force: true })));
  if (stale.length > 0) await fsyncDir(dir);
}
