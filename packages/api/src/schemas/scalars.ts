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
 * A Raft index: uint64 on the wire, a JS number inside (indexes stay far below 2^53). A larger value
 * can never match a real index, so it is clamped to one that cannot either.
 */
export const raftIndex = uint64.transform((v) =>
  v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v),
);

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
