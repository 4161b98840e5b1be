import { formatDuration, parseDurationNs } from "@cairn/duration";
import { DEFAULT_LOCK_DELAY_NS, SESSION_TTL_MAX_NS, type SessionSpec } from "@cairn/fsm";
import { badRequest, HttpError } from "../http/errors.js";
import type { SessionCreateBody } from "../schemas/session-create.js";

/** The agent's own node-level health check that sessions depend on by default. */
export const SERF_HEALTH_CHECK = "serfHealth";

export interface SessionDefaults {
  id: string;
  /** The agent's node. */
  node: string;
  namespace: string;
  /** `session_ttl_min`. */
  ttlMinMs: number;
}

/**
 * A create request's body with Consul's defaults applied and its rules checked: Behavior release|delete,
 * TTL empty or between session_ttl_min and 24h (echoed as sent). Pure; throws an HttpError (400, or 500 for
 * an out-of-range TTL, as Consul).
 */
export function toSessionSpec(
  body: SessionCreateBody,
  d: SessionDefaults,
): SessionSpec & { Namespace: string } {
  const behavior = body.Behavior || "release";
  if (behavior !== "release" && behavior !== "delete")
    throw badRequest(`Invalid Behavior setting '${behavior}'`);
  const ttl = body.TTL ?? "";
  if (ttl !== "") checkTtl(ttl, BigInt(Math.round(d.ttlMinMs * 1e6)));
  return {
    ID: d.id,
    Node: body.Node || d.node,
    Name: body.Name ?? "",
    ...sessionChecks(body),
    LockDelay: body.LockDelay ?? DEFAULT_LOCK_DELAY_NS,
    Behavior: behavior,
    TTL: ttl,
    Namespace: body.Namespace || d.namespace,
  };
}

function checkTtl(ttl: string, minNs: bigint): void {
  let ns: bigint;
  try {
    ns = parseDurationNs(ttl);
  } catch {
    throw badRequest(`Session TTL '${ttl}' invalid: not a duration`);
  }
  const maxNs = BigInt(SESSION_TTL_MAX_NS);
  // Consul's status and text, the TTL in nanoseconds as Go's %d prints a Duration: Patroni recognises a 500
  // starting `Invalid Session TTL` and lowers its TTL to session_ttl_min.
  if (ns !== 0n && (ns < minNs || ns > maxNs)) {
    throw new HttpError(
      500,
      `Invalid Session TTL '${ns}', must be between [${formatDuration(minNs)}=${formatDuration(maxNs)}]`,
    );
  }
}

/**
 * The checks a session depends on, as Consul 1.7+ records them: serfHealth (as a node check) only when the
 * body names no check list at all, so `NodeChecks: []` or `Checks: []` means none. The pre-1.7 `Checks`
 * list is kept apart, as Consul keeps it.
 */
function sessionChecks(
  body: SessionCreateBody,
): Pick<SessionSpec, "Checks" | "NodeChecks" | "ServiceChecks"> {
  if (body.Checks === undefined && body.NodeChecks === undefined && body.ServiceChecks === undefined) {
    return { NodeChecks: [SERF_HEALTH_CHECK] };
  }
  const serviceChecks = (body.ServiceChecks ?? []).map((c, i) => {
    if (c.ID === "") throw badRequest(`Request decode failed: ServiceChecks[${i}]: missing check ID`);
    return c.Namespace ? { ID: c.ID, Namespace: c.Namespace } : { ID: c.ID };
  });
  return {
    ...(body.Checks && body.Checks.length > 0 ? { Checks: body.Checks } : {}),
    NodeChecks: body.NodeChecks ?? [],
    ServiceChecks: serviceChecks,
  };
}
