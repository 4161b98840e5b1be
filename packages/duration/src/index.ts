/**
 * Go duration syntax (`time.ParseDuration` / `Duration.String`), as Consul's clients send and expect it:
 * `15s`, `1m30s`, `9.97s`, `100ms`, `1h`, `-2us`, and a bare `0`.
 * Values are nanoseconds held as bigint so fractions and large durations stay exact.
 */

export class DurationError extends Error {
  constructor(text: string) {
    super(`invalid duration "${text}"`);
    this.name = "DurationError";
  }
}

const NS_PER_UNIT: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1_000n],
  ["µs", 1_000n], // U+00B5 micro sign
  ["μs", 1_000n], // U+03BC Greek mu
  ["ms", 1_000_000n],
  ["s", 1_000_000_000n],
  ["m", 60_000_000_000n],
  ["h", 3_600_000_000_000n],
]);

const INT64_MAX = (1n << 63n) - 1n;

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= "0" && ch <= "9";
}

/** Parses a Go duration into nanoseconds. Throws DurationError on anything Go would reject. */
export function parseDurationNs(text: string): bigint {
  let i = 0;
  let negative = false;
  if (text[0] === "-" || text[0] === "+") {
    negative = text[0] === "-";
    i = 1;
  }
  if (text.slice(i) === "0") return 0n;
  if (i >= text.length) throw new DurationError(text);

  let total = 0n;
  while (i < text.length) {
    const intStart = i;
    while (isDigit(text[i])) i++;
    const intPart = text.slice(intStart, i);
    let fracPart = "";
    if (text[i] === ".") {
      i++;
      const fracStart = i;
      while (isDigit(text[i])) i++;
      fracPart = text.slice(fracStart, i);
    }
    if (intPart === "" && fracPart === "") throw new DurationError(text);

    const unitStart = i;
    while (i < text.length && text[i] !== "." && !isDigit(text[i])) i++;
    const unit = NS_PER_UNIT.get(text.slice(unitStart, i));
    if (unit === undefined) throw new DurationError(text);

    let value = BigInt(intPart === "" ? "0" : intPart) * unit;
    if (fracPart !== "") {
      // Truncate toward zero at nanosecond precision, as Go does.
      value += (BigInt(fracPart) * unit) / 10n ** BigInt(fracPart.length);
    }
    total += value;
    if (total > INT64_MAX) throw new DurationError(text);
  }
  return negative ? -total : total;
}

/** Parses a Go duration into (possibly fractional) milliseconds. */
export function parseDurationMs(text: string): number {
  return Number(parseDurationNs(text)) / 1e6;
}

/** Formats nanoseconds the way Go's `Duration.String` does: `1h2m3.5s`, `150ms`, `0s`. */
export function formatDuration(ns: bigint | number): string {
  let n = typeof ns === "bigint" ? ns : BigInt(Math.trunc(ns));
  if (n === 0n) return "0s";
  const sign = n < 0n ? "-" : "";
  if (n < 0n) n = -n;

  if (n < 1_000_000_000n) {
    // Sub-second values use the largest unit that keeps an integer part.
    if (n < 1_000n) return `${sign}${n}ns`;
    if (n < 1_000_000n) return `${sign}${fraction(n, 1_000n)}µs`;
    return `${sign}${fraction(n, 1_000_000n)}ms`;
  }
  const hours = n / 3_600_000_000_000n;
  n %= 3_600_000_000_000n;
  const minutes = n / 60_000_000_000n;
  n %= 60_000_000_000n;
  const seconds = `${fraction(n, 1_000_000_000n)}s`;
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

function fraction(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return whole.toString();
  const digits = unit.toString().length - 1;
  return `${whole}.${rest.toString().padStart(digits, "0").replace(/0+$/, "")}`;
}
