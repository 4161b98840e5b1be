import { SnapshotFormatError } from "../snapshot/format.js";
import { frame } from "../snapshot/write.js";

/** The archive bytes of a streamed restore so far, kept as the chunk entries carried them. */
export interface Staging {
  readonly id: string;
  readonly chunks: readonly Uint8Array[];
  readonly bytes: number;
}

export function openStaging(id: string): Staging {
  return { id, chunks: [], bytes: 0 };
}

export function addChunk(staging: Staging, data: Uint8Array): Staging {
  return { id: staging.id, chunks: [...staging.chunks, data], bytes: staging.bytes + data.byteLength };
}

const STAGING = "restore-staging";
const CHUNK = "restore-chunk";

/**
 * A Raft snapshot taken while a restore is staged carries the staging after the state's end frame: a
 * server that installs that snapshot then holds the same chunks as one that applied them from the log,
 * so the commit entry swaps in the same state everywhere.
 */
export function* stagingFrames(staging: Staging | undefined): Generator<Uint8Array> {
  if (!staging) return;
  yield frame([STAGING, staging.id]);
  for (const chunk of staging.chunks) yield frame([CHUNK, chunk]);
}

/** Reads back what stagingFrames wrote, one frame at a time. */
export class StagingReader {
  #staging: Staging | undefined;

  get staging(): Staging | undefined {
    return this.#staging;
  }

  frame = (value: unknown[]): void => {
    const [tag, field] = value;
    if (tag === STAGING && typeof field === "string" && !this.#staging) {
      this.#staging = openStaging(field);
      return;
    }
    if (tag === CHUNK && field instanceof Uint8Array && this.#staging) {
      this.#staging = addChunk(this.#staging, field);
      return;
    }
    throw new SnapshotFormatError("malformed restore staging after the end of the snapshot");
  };
}
