import { z } from "zod";
import { nanosToMillis, parseGoDuration } from "./duration.js";

/**
 * zod field types for configuration values, decoding as Consul does (mapstructure's weakly typed input:
 * `"3"` is a number, `"true"` a boolean, `8500` a string where a string is wanted) and failing with a short
 * reason that the loader prefixes with the source and key.
 */

type Ctx = z.core.$RefinementCtx;

function reject(ctx: Ctx, message: string): never {
  ctx.addIssue({ code: "custom", message });
  return z.NEVER;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const asString = (value: unknown, ctx: Ctx): string => {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return reject(ctx, `expected a string, got ${show(value)}`);
};

export const stringField = z.unknown().transform(asString).optional();

const GO_BOOLEANS: ReadonlyMap<string, boolean> = new Map([
  ...["1", "t", "T", "TRUE", "true", "True"].map((s) => [s, true] as const),
  ...["0", "f", "F", "FALSE", "false", "False"].map((s) => [s, false] as const),
]);

/** Go's strconv.ParseBool, which Consul's flags and weak decoding use. */
export function parseGoBoolean(text: string): boolean | undefined {
  return GO_BOOLEANS.get(text);
}

export const booleanField = z
  .unknown()
  .transform((value, ctx) => {
    if (typeof value === "boolean") return value;
    const parsed =
      typeof value === "string" || value === 0 || value === 1 ? parseGoBoolean(String(value)) : undefined;
    return parsed ?? reject(ctx, `expected true or false, got ${show(value)}`);
  })
  .optional();

/** An integer within [min, max]; `expected` is the whole reason shown when the value does not fit. */
export function integerField(min: number, max: number, expected: string) {
  return z
    .unknown()
    .transform((value, ctx) => {
      const number = typeof value === "string" && /^[-+]?\d+$/.test(value.trim()) ? Number(value) : value;
      if (typeof number === "number" && Number.isInteger(number) && number >= min && number <= max)
        return number;
      return reject(ctx, `${expected}, got ${show(value)}`);
    })
    .optional();
}

export const portField = integerField(-1, 65535, "expected a port number (1-65535, or -1 to disable)");

export const numberField = z
  .unknown()
  .transform((value, ctx) => {
    const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    if (typeof number === "number" && Number.isFinite(number) && number >= 0) return number;
    return reject(ctx, `expected a non-negative number, got ${show(value)}`);
  })
  .optional();

/** A Go duration string at least `min` nanoseconds long, decoded to milliseconds. */
function goDurationField(min: bigint, expected: string) {
  return z
    .unknown()
    .transform((value, ctx) => {
      const nanos = typeof value === "string" ? parseGoDuration(value.trim()) : undefined;
      if (nanos !== undefined && nanos >= min) return nanosToMillis(nanos);
      return reject(ctx, `expected ${expected}, got ${show(value)}`);
    })
    .optional();
}

/** A Go duration string, decoded to milliseconds. */
export const durationField = goDurationField(0n, 'a duration such as "10s" or "1m30s"');

/** A Go duration string longer than zero (an interval something runs at), decoded to milliseconds. */
export const positiveDurationField = goDurationField(1n, 'a positive duration such as "30s"');

export function enumField<const T extends string>(
  values: readonly T[],
  aliases: Readonly<Record<string, T>> = {},
) {
  return z
    .unknown()
    .transform((value, ctx): T => {
      const text = typeof value === "string" ? value.trim().toLowerCase() : undefined;
      const found = text === undefined ? undefined : (aliases[text] ?? values.find((v) => v === text));
      return (
        found ?? reject(ctx, `expected one of ${values.map((v) => `"${v}"`).join(", ")}, got ${show(value)}`)
      );
    })
    .optional();
}

/** A list of strings; a single string counts as a list of one, as Consul's weak decoding allows. */
export const stringListField = z
  .unknown()
  .transform((value, ctx) => {
    const items = Array.isArray(value) ? value : [value];
    return items.map((item) =>
      typeof item === "string" || typeof item === "number"
        ? String(item)
        : reject(ctx, `expected a list of strings, got ${show(value)}`),
    );
  })
  .optional();

export const stringMapField = z
  .unknown()
  .transform((value, ctx) => {
    const object = mergeRepeatedBlocks(value);
    if (!isPlainObject(object)) return reject(ctx, `expected an object of strings, got ${show(value)}`);
    const result: Record<string, string> = {};
    for (const [key, item] of Object.entries(object)) {
      if (typeof item !== "string" && typeof item !== "number" && typeof item !== "boolean") {
        return reject(ctx, `${key}: expected a string, got ${show(item)}`);
      }
      Object.defineProperty(result, key, {
        value: String(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return result;
  })
  .optional();

/**
 * HCL writes `ports { http = 1 }` twice as a list of two blocks; a section that is one object merges them in
 * order, later keys winning.
 */
function mergeRepeatedBlocks(value: unknown): unknown {
  if (Array.isArray(value) && value.length > 0 && value.every(isPlainObject))
    return Object.assign({}, ...value);
  return value;
}

/** A nested block such as `ports { ... }`; unknown keys inside it are reported (as warnings) by the loader. */
export function section<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z
    .preprocess(mergeRepeatedBlocks, z.strictObject(shape, { error: "expected an object (a block)" }))
    .optional();
}

/** `service { ... }` (one object) or `services = [...]`: always a list of definitions in Consul's JSON shape. */
export function definitionList<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z
    .preprocess(
      (value) => (isPlainObject(value) ? [value] : value),
      z.array(z.looseObject(shape, { error: "expected an object" }), {
        error: "expected an object or a list of objects",
      }),
    )
    .optional();
}

/** For definitions whose fields Cairn reads later: a string that must be present. */
export const requiredStringField = z.unknown().transform((value, ctx) => {
  if (value === undefined) return reject(ctx, "is required");
  return asString(value, ctx);
});
