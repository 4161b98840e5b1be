/**
 * Go's duration syntax (time.ParseDuration), which Consul's configuration uses: `15s`, `1m30s`, `9.97s`,
 * `100ms`, `1h`, `-5s`, `1.5us`, and a bare `0`. Nanoseconds are held as bigint so that fractions and long
 * durations stay exact.
 */

const UNIT_NANOS: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1_000n],
  ["\u00b5s", 1_000n], // micro sign
  ["\u03bcs", 1_000n], // Greek small letter mu
  ["ms", 1_000_000n],
  ["s", 1_000_000_000n],
  ["m", 60_000_000_000n],
  ["h", 3_600_000_000_000n],
]);

const MAX_NANOS = 2n ** 63n - 1n;

const COMPONENT = /^(\d*)(?:\.(\d*))?([^\d.]*)/;

/** Parses a Go duration into nanoseconds, or returns undefined when Go would reject the text. */
export function parseGoDuration(text: string): bigint | undefined {
  let rest = text;
  const sign = rest[0] === "-" ? -1n : 1n;
  if (rest[0] === "-" || rest[0] === "+") rest = rest.slice(1);
  if (rest === "0") return 0n;
  if (rest === "") return undefined;
  let total = 0n;
  while (rest !== "") {
    const match = COMPONENT.exec(rest)!;
    const [whole, integer = "", fraction = "", unitName = ""] = match;
    const unit = UNIT_NANOS.get(unitName);
    if ((integer === "" && fraction === "") || unit === undefined) return undefined;
    total += BigInt(integer || "0") * unit;
    // Go truncates digits finer than a nanosecond.
    if (fraction !== "") total += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    if (total > MAX_NANOS) return undefined;
    rest = rest.slice(whole.length);
  }
  return sign * total;
}

/** Milliseconds (fractional below a millisecond) from nanoseconds. */
export function nanosToMillis(nanos: bigint): number {
  return Number(nanos) / 1e6;
}

/** Formats nanoseconds as Go's Duration.String does: `1h2m3.5s`, `150ms`, `1.5µs`, `0s`. */
export function formatGoDuration(nanos: bigint): string {
  if (nanos === 0n) return "0s";
  const sign = nanos < 0n ? "-" : "";
  const abs = nanos < 0n ? -nanos : nanos;
  if (abs < 1_000_000_000n) {
    const [unit, size] =
      abs < 1_000n ? ["ns", 1n] : abs < 1_000_000n ? ["\u00b5s", 1_000n] : ["ms", 1_000_000n];
    return `${sign}${decimal(abs, size)}${unit}`;
  }
  const hours = abs / 3_600_000_000_000n;
  const minutes = (abs / 60_000_000_000n) % 60n;
  const seconds = decimal(abs % 60_000_000_000n, 1_000_000_000n);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** `value / size` written with the fraction's trailing zeros dropped. */
function decimal(value: bigint, size: bigint): string {
  const whole = value / size;
  const fraction = value % size;
  if (fraction === 0n) return whole.toString();
  const digits = fraction
    .toString()
    .padStart(size.toString().length - 1, "0")
    .replace(/0+$/, "");
  return `${whole}.${digits}`;
}
