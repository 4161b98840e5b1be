import { DurationError, formatDuration, parseDurationNs } from "@cairn/duration";
import { z } from "zod";

/** Building blocks shared by the kinds' schemas. Every field is optional: Go leaves an absent field at zero. */

export const str = z.string().optional();
export const int = z.number().int().optional();
export const uint = z.number().int().nonnegative().optional();
export const num = z.number().optional();
export const bool = z.boolean().optional();
export const strings = z.array(z.string()).optional();
export const stringMap = z.record(z.string(), z.string()).optional();
/** Go's map[string]interface{}: anything, keys as sent. */
export const freeMap = z.record(z.string(), z.unknown()).optional();

export const list = <T extends z.ZodType>(item: T) => z.array(item).optional();
export const obj = <S extends z.ZodRawShape>(shape: S) => z.object(shape).optional();

function durationNs(value: string | number, ctx: z.RefinementCtx): bigint | undefined {
  if (typeof value === "number") return BigInt(Math.trunc(value));
  try {
    return parseDurationNs(value);
  } catch (err) {
    if (!(err instanceof DurationError)) throw err;
    ctx.addIssue({ code: "custom", message: `time: invalid duration "${value}"` });
    return undefined;
  }
}

/**
 * A time.Duration that Consul's JSON renders as a Go duration string (resolver and route timeouts): a string
 * or nanoseconds in, `"15s"` out, unset when zero.
 */
export const durationText = z
  .union([z.string(), z.number()])
  .transform((v, ctx) => {
    const ns = durationNs(v, ctx);
    return ns === undefined || ns === 0n ? undefined : formatDuration(ns);
  })
  .optional();

/** A time.Duration that Consul's JSON renders as nanoseconds (health-check intervals, cookie TTLs). */
export const durationNanos = z
  .union([z.string(), z.number()])
  .transform((v, ctx) => {
    const ns = durationNs(v, ctx);
    return ns === undefined ? undefined : Number(ns);
  })
  .optional();

export const meshGateway = obj({
  Mode: z.enum(["", "none", "local", "remote"], { message: "Invalid Mesh Gateway Mode" }).optional(),
});

export const transparentProxy = obj({ OutboundListenerPort: int, DialedDirectly: bool });

export const proxyMode = z.enum(["", "direct", "transparent"], { message: "Invalid Proxy Mode" }).optional();

export const mutualTlsMode = z
  .enum(["", "strict", "permissive"], { message: "Invalid MutualTLSMode" })
  .optional();

export const expose = obj({
  Checks: bool,
  Paths: list(z.object({ ListenerPort: int, Path: str, LocalPathPort: int, Protocol: str })),
});

export const headerModifiers = obj({ Add: stringMap, Set: stringMap, Remove: strings });

export const envoyExtensions = list(
  z.object({ Name: str, Required: bool, Arguments: freeMap, ConsulVersion: str, EnvoyVersion: str }),
);

export const passiveHealthCheck = obj({
  Interval: durationNanos,
  MaxFailures: uint,
  EnforcingConsecutive5xx: uint,
  MaxEjectionPercent: uint,
  BaseEjectionTime: durationNanos,
});

export const upstreamLimits = {
  MaxConnections: int,
  MaxPendingRequests: int,
  MaxConcurrentRequests: int,
};

export const httpHeaderMatch = z.object({
  Name: str,
  Present: bool,
  Exact: str,
  Prefix: str,
  Suffix: str,
  Regex: str,
  Invert: bool,
});

/** Consul's limits on Meta (shared with services and nodes). */
export function metaError(meta: Readonly<Record<string, string>> | undefined): string | undefined {
  if (meta === undefined) return undefined;
  const keys = Object.keys(meta);
  if (keys.length > 64) return "Meta exceeds maximum element count 64";
  for (const key of keys) {
    if (key.length > 128) return `Meta key "${key}" exceeds maximum length 128`;
    if ((meta[key] ?? "").length > 512) return `Meta value for key "${key}" exceeds maximum length 512`;
  }
  return undefined;
}
