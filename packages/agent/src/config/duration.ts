import { DurationError, parseDurationNs } from "@cairn/duration";

/**
 * A Go duration in nanoseconds, or undefined where Go would reject the text: config validation turns that
 * into a message naming the key or flag.
 */
export function parseGoDuration(text: string): bigint | undefined {
  try {
    return parseDurationNs(text);
  } catch (err) {
    if (err instanceof DurationError) return undefined;
    throw err;
  }
}

/** Milliseconds (fractional below a millisecond) from nanoseconds. */
export function nanosToMillis(nanos: bigint): number {
  return Number(nanos) / 1e6;
}
