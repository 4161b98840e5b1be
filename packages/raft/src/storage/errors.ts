/** The data directory holds something this build must not trust; starting would risk losing or inventing data. */
export class StorageCorruptionError extends Error {
  override readonly name = "StorageCorruptionError";
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`raft storage corrupt: ${file}: ${reason}`);
  }
}

/** The data directory was written by a different (newer or unknown) on-disk format. */
export class StorageVersionError extends Error {
  override readonly name = "StorageVersionError";
  constructor(
    readonly file: string,
    found: unknown,
    expected: number,
  ) {
    super(
      `raft storage format unknown: ${file}: found format version ${JSON.stringify(found)}, this build reads ${expected}`,
    );
  }
}
