import { z } from "zod";

const UINT64_MAX = (1n << 64n) - 1n;

/**
 * An unsigned 64-bit integer from the bigint-exact JSON reader: a safe JS integer or a bigint,
 * always delivered as bigint.
 */
export const uint64 = z
  .union([z.bigint(), z.number().int()])
  .transform((v) => BigInt(v))
  .refine((v) => v >= 0n && v <= UINT64_MAX, { message: "must be an unsigned integer below 2^64" });

/**
 * A client-sent Raft index as the JS number the state machine compares with (real indexes stay far below
 * 2^53). A larger value can never match a real index, so it is clamped to one that cannot either.
 */
export function toRaftIndex(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

/** A Raft index in a JSON body: uint64 on the wire, a JS number inside. */
export const raftIndex = uint64.transform(toRaftIndex);

/** Go's `map[string]string`: null reads as empty. */
export const stringMap = z
  .record(z.string(), z.string())
  .nullable()
  .transform((v) => v ?? {});

/** Go's `[]string`: null reads as empty. */
export const stringList = z
  .array(z.string())
  .nullable()
  .transform((v) => v ?? []);
