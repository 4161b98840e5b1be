import { DurationError, parseDurationNs } from "@cairn/duration";
import { badRequest } from "./errors.js";

const UINT64_MAX = (1n << 64n) - 1n;
const DIGITS = /^[0-9]+$/;

/**
 * The query string of one request. Flags count as set when present at all (`?recurse`, `?recurse=`,
 * `?recurse=false` alike), as in Consul. Typed getters throw a 400 HttpError with a one-line reason.
 */
export class Query {
  private readonly params: URLSearchParams;

  constructor(search: string) {
    this.params = new URLSearchParams(search);
  }

  /** From a full request URL; only the part after `?` is read. */
  static fromUrl(url: string): Query {
    const q = url.indexOf("?");
    return new Query(q < 0 ? "" : url.slice(q + 1));
  }

  has(name: string): boolean {
    return this.params.has(name);
  }

  /** First value; undefined when absent. */
  get(name: string): string | undefined {
    return this.params.get(name) ?? undefined;
  }

  /** Every parameter but `ignored`, in one canonical string (sorted, NUL-separated): a cache key's part. */
  keyWithout(ignored: ReadonlySet<string>): string {
    const kept: string[] = [];
    for (const [name, value] of this.params) if (!ignored.has(name)) kept.push(`${name}=${value}`);
    return kept.sort().join("\u0000");
  }

  /** Unsigned 64-bit integer, exact; undefined when absent. */
  uint64(name: string): bigint | undefined {
    const raw = this.params.get(name);
    if (raw === null) return undefined;
    return parseUint64(raw, name);
  }

  /** Go duration in nanoseconds; undefined when absent or empty. */
  durationNs(name: string, reason: string): bigint | undefined {
    const raw = this.params.get(name);
    if (raw === null || raw === "") return undefined;
    try {
      return parseDurationNs(raw);
    } catch (err) {
      if (err instanceof DurationError) throw badRequest(reason);
      throw err;
    }
  }
}

export function parseUint64(raw: string, name: string): bigint {
  if (!DIGITS.test(raw)) throw badRequest(`Invalid ${name}: "${printable(raw)}" is not an unsigned integer`);
  const value = BigInt(raw);
  if (value > UINT64_MAX) throw badRequest(`Invalid ${name}: "${printable(raw)}" is larger than 2^64-1`);
  return value;
}

/** Keeps user text quoted in a one-line reason short and free of line breaks. */
export function printable(text: string): string {
  let oneLine = "";
  for (const ch of text) oneLine += ch < " " || ch === "\u007f" ? "?" : ch;
  return oneLine.length > 64 ? `${oneLine.slice(0, 64)}...` : oneLine;
}
