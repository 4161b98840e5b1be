// One flag parser for every command, with Go's `flag` package semantics (what the consul CLI uses):
// `-name`, `--name`, `-name=value`, `-name value` (not for booleans), parsing stops at the first
// positional argument, at a lone `-`, and after `--`.
import { parseDurationMs } from "@cairn/duration";

export class UsageError extends Error {}

export interface Flag<T> {
  readonly kind: "bool" | "string" | "uint64" | "int" | "duration";
  readonly usage: string;
  readonly initial: T;
  parse(raw: string): T;
}

export type FlagSet = Readonly<Record<string, Flag<unknown>>>;
export type FlagValues<S extends FlagSet> = {
  -readonly [K in keyof S]: S[K] extends Flag<infer T> ? T : never;
};

export interface Parsed<S extends FlagSet> {
  values: FlagValues<S>;
  /** Names of the flags given on the command line, to tell "-modify-index=0" from no flag at all. */
  given: Set<string>;
  positionals: string[];
  help: boolean;
}

const U64_MAX = (1n << 64n) - 1n;

export function boolFlag(usage: string, initial = false): Flag<boolean> {
  return { kind: "bool", usage, initial, parse: parseBool };
}

export function stringFlag(usage: string, initial = ""): Flag<string> {
  return { kind: "string", usage, initial, parse: (raw) => raw };
}

/** uint64 kept exact as a bigint: flags and indexes go above 2^53. */
export function uint64Flag(usage: string, initial = 0n): Flag<bigint> {
  return { kind: "uint64", usage, initial, parse: parseUint64 };
}

export function intFlag(usage: string, initial = 0): Flag<number> {
  return {
    kind: "int",
    usage,
    initial,
    parse(raw) {
      const negative = raw.startsWith("-");
      const n = parseGoInteger(negative ? raw.slice(1) : raw);
      const value = negative ? -n : n;
      if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
        throw new Error("value out of range");
      }
      return Number(value);
    },
  };
}

/** A Go duration (`15s`, `1m30s`), as milliseconds. */
export function durationFlag(usage: string, initialMs = 0): Flag<number> {
  return { kind: "duration", usage, initial: initialMs, parse: parseDurationMs };
}

export function parseBool(raw: string): boolean {
  if (["1", "t", "T", "true", "TRUE", "True"].includes(raw)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(raw)) return false;
  throw new Error("parse error");
}

export function parseUint64(raw: string): bigint {
  const value = parseGoInteger(raw);
  if (value > U64_MAX) throw new Error("value out of range");
  return value;
}

/** strconv.ParseUint(raw, 0, 64) syntax: decimal, 0x hex, 0o or leading-0 octal, 0b binary. */
function parseGoInteger(raw: string): bigint {
  let digits = raw;
  let prefix = "";
  const lower = raw.toLowerCase();
  if (lower.startsWith("0x") || lower.startsWith("0o") || lower.startsWith("0b")) {
    prefix = lower.slice(0, 2);
    digits = raw.slice(2).replaceAll("_", "");
  } else if (raw.length > 1 && raw.startsWith("0")) {
    prefix = "0o";
    digits = raw.slice(1).replaceAll("_", "");
  }
  const pattern = { "": /^[0-9]+$/, "0x": /^[0-9a-fA-F]+$/, "0o": /^[0-7]+$/, "0b": /^[01]+$/ }[prefix];
  if (pattern === undefined || !pattern.test(digits)) throw new Error("parse error");
  return BigInt(prefix + digits);
}

function initialValues<S extends FlagSet>(set: S): FlagValues<S> {
  const values: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(set)) values[name] = flag.initial;
  return values as FlagValues<S>;
}

export function parseFlags<S extends FlagSet>(set: S, argv: readonly string[]): Parsed<S> {
  const values: Record<string, unknown> = initialValues(set);
  const given = new Set<string>();
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.length < 2 || !arg.startsWith("-")) break;
    if (arg === "--") {
      i++;
      break;
    }
    const body = arg.startsWith("--") ? arg.slice(2) : arg.slice(1);
    if (body === "" || body.startsWith("-") || body.startsWith("=")) {
      throw new UsageError(`bad flag syntax: ${arg}`);
    }
    const eq = body.indexOf("=");
    const name = eq === -1 ? body : body.slice(0, eq);
    const flag = Object.hasOwn(set, name) ? set[name] : undefined;
    if (flag === undefined) {
      if (name === "h" || name === "help")
        return { values: values as FlagValues<S>, given, positionals: [], help: true };
      throw new UsageError(`flag provided but not defined: -${name}`);
    }
    let raw: string;
    if (eq !== -1) raw = body.slice(eq + 1);
    else if (flag.kind === "bool") raw = "true";
    else {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`flag needs an argument: -${name}`);
      raw = next;
      i++;
    }
    try {
      values[name] = flag.parse(raw);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new UsageError(
        `invalid ${flag.kind === "bool" ? "boolean " : ""}value "${raw}" for flag -${name}: ${reason}`,
      );
    }
    given.add(name);
  }
  return { values: values as FlagValues<S>, given, positionals: argv.slice(i), help: false };
}

/** The option section of a command's help text, one entry per flag as `consul <cmd> -h` lists them. */
export function formatFlags(title: string, set: FlagSet): string {
  const names = Object.keys(set).sort();
  if (names.length === 0) return "";
  const lines = [`${title}:`, ""];
  for (const name of names) {
    const flag = set[name]!;
    lines.push(
      flag.kind === "bool" ? `  -${name}` : `  -${name}=<${flag.kind === "string" ? "string" : "value"}>`,
    );
    for (const line of wrap(flag.usage, 74)) lines.push(`     ${line}`);
    lines.push("");
  }
  return lines.join("\n").trimEnd();
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines;
}
