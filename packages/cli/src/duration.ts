// Go's time.ParseDuration syntax (`300ms`, `1.5h`, `2h45m`), returned as milliseconds.
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

export function parseDuration(raw: string): number {
  let rest = raw;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest.startsWith("-") ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw new Error(`invalid duration "${raw}"`);
  let total = 0;
  while (rest !== "") {
    const match = PART.exec(rest);
    if (match === null) throw new Error(`invalid duration "${raw}"`);
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
    rest = rest.slice(match[0].length);
  }
  return sign * total;
}
