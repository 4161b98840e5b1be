import { DurationError, parseDurationNs } from "@cairn/duration";
import { z } from "zod";
import { stringList } from "./scalars.js";

/**
 * Numbers (and duration strings) below this many nanoseconds are taken as seconds: clients often send
 * `5` meaning five seconds, as Consul's handler allows for.
 */
const LOCK_DELAY_SECONDS_BELOW = 1000n;

const lockDelay = z.union([z.string(), z.number(), z.bigint()]).transform((raw, ctx) => {
  let ns: bigint;
  if (typeof raw === "string") {
    try {
      ns = parseDurationNs(raw);
    } catch (err) {
      if (!(err instanceof DurationError)) throw err;
      ctx.addIssue({ code: "custom", message: `invalid duration "${raw}"` });
      return z.NEVER;
    }
  } else {
    ns = typeof raw === "bigint" ? raw : BigInt(Math.trunc(raw));
  }
  if (ns < LOCK_DELAY_SECONDS_BELOW) ns *= 1_000_000_000n;
  if (ns <= 0n) {
    ctx.addIssue({ code: "custom", message: "must be greater than 0" });
    return z.NEVER;
  }
  return Number(ns);
});

/** Body of PUT /v1/session/create. Defaults that depend on the agent are applied by the route. */
export const sessionCreateBody = z.object({
  LockDelay: lockDelay.optional(),
  Node: z.string().optional(),
  Name: z.string().nullable().optional(),
  Checks: stringList.optional(),
  /** Consul 1.7+ spelling of node-level check IDs; joined with Checks. */
  NodeChecks: stringList.optional(),
  /** Consul 1.7+ service-level checks, by check ID. */
  ServiceChecks: z
    .array(z.object({ ID: z.string(), Namespace: z.string().nullable().optional() }))
    .nullable()
    .optional(),
  Behavior: z.string().nullable().optional(),
  TTL: z.string().nullable().optional(),
  Namespace: z.string().nullable().optional(),
});

export type SessionCreateBody = z.output<typeof sessionCreateBody>;
