import { CommandDecodeError } from "./errors.js";

/** Field readers for decoding commands: each throws CommandDecodeError naming the bad field. */

export type Raw = Readonly<Record<string, unknown>>;

const MAX_U64 = (1n << 64n) - 1n;

function fail(field: string, want: string): never {
  throw new CommandDecodeError(`command field "${field}" must be ${want}`);
}

export function isRaw(value: unknown): value is Raw {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}

export function obj(raw: Raw, field: string): Raw {
  const v = raw[field];
  return isRaw(v) ? v : fail(field, "an object");
}

export function optObj(raw: Raw, field: string): Raw | undefined {
  return raw[field] == null ? undefined : obj(raw, field);
}

export function str(raw: Raw, field: string): string {
  const v = raw[field];
  return typeof v === "string" ? v : fail(field, "a string");
}

export function optStr(raw: Raw, field: string): string | undefined {
  return raw[field] == null ? undefined : str(raw, field);
}

export function int(raw: Raw, field: string): number {
  const v = raw[field];
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0
    ? v
    : fail(field, "a non-negative integer");
}

export function optInt(raw: Raw, field: string): number | undefined {
  return raw[field] == null ? undefined : int(raw, field);
}

export function num(raw: Raw, field: string): number {
  const v = raw[field];
  return typeof v === "number" && Number.isFinite(v) ? v : fail(field, "a finite number");
}

/** Flags travel as msgpack integers; small ones may decode as numbers. */
export function u64(raw: Raw, field: string): bigint {
  const v = raw[field];
  if (v == null) return 0n;
  const b =
    typeof v === "bigint" ? v : typeof v === "number" && Number.isSafeInteger(v) ? BigInt(v) : undefined;
  return b !== undefined && b >= 0n && b <= MAX_U64 ? b : fail(field, "an integer in 0..2^64-1");
}

export function bytes(raw: Raw, field: string): Uint8Array {
  const v = raw[field];
  if (v == null) return new Uint8Array(0);
  return v instanceof Uint8Array ? v : fail(field, "binary");
}

export function optBool(raw: Raw, field: string): boolean | undefined {
  const v = raw[field];
  if (v == null) return undefined;
  return typeof v === "boolean" ? v : fail(field, "a boolean");
}

export function list<T>(raw: Raw, field: string, item: (value: unknown, at: string) => T): T[] {
  const v = raw[field];
  if (!Array.isArray(v)) fail(field, "an array");
  return v.map((x, i) => item(x, `${field}[${i}]`));
}

export function optList<T>(
  raw: Raw,
  field: string,
  item: (value: unknown, at: string) => T,
): T[] | undefined {
  return raw[field] == null ? undefined : list(raw, field, item);
}

export function strItem(value: unknown, at: string): string {
  return typeof value === "string" ? value : fail(at, "a string");
}

export function rawItem(value: unknown, at: string): Raw {
  return isRaw(value) ? value : fail(at, "an object");
}

export function stringMap(raw: Raw, field: string): Record<string, string> | undefined {
  const v = optObj(raw, field);
  if (!v) return undefined;
  for (const [k, x] of Object.entries(v)) if (typeof x !== "string") fail(`${field}.${k}`, "a string");
  return v as Record<string, string>;
}

export function oneOf<T extends string>(raw: Raw, field: string, allowed: readonly T[]): T {
  const v = raw[field];
  return typeof v === "string" && (allowed as readonly string[]).includes(v)
    ? (v as T)
    : fail(field, `one of ${allowed.join(", ")}`);
}

export function optOneOf<T extends string>(raw: Raw, field: string, allowed: readonly T[]): T | undefined {
  return raw[field] == null ? undefined : oneOf(raw, field, allowed);
}
