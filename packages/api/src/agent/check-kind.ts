import type { CheckDefinitionBody } from "./definition-schema.js";

/** Consul's check types, as `Type` names them in check records. */
export type CheckKind = "ttl" | "http" | "tcp" | "udp" | "grpc" | "h2ping" | "script" | "docker" | "alias";

/** A check definition Consul's agent would refuse; the message is the one-line reason. */
export class CheckKindError extends Error {
  override readonly name = "CheckKindError";
}

/** The fields that each make a check run on an interval, with the kind each gives. */
const INTERVAL_FIELDS = [
  ["HTTP", "http"],
  ["TCP", "tcp"],
  ["UDP", "udp"],
  ["GRPC", "grpc"],
  ["H2PING", "h2ping"],
  ["ScriptArgs", "script"],
] as const;

/**
 * Decides which kind of check a definition is, refusing what Consul's CheckType.Validate refuses (with its
 * words, which clients show as they are) and, beyond it, definitions Consul would silently read as one kind
 * while the user meant another: two targets at once (`GRPC` beside `HTTP`), `DockerContainerID` with
 * nothing to run, an address without a port.
 */
export function checkKind(body: CheckDefinitionBody): CheckKind {
  const interval = body.Interval ?? 0;
  const ttl = body.TTL ?? 0;
  const timeout = body.Timeout ?? 0;
  const alias = Boolean(body.AliasNode || body.AliasService);
  const targets = INTERVAL_FIELDS.filter(([field]) =>
    field === "ScriptArgs" ? (body.ScriptArgs?.length ?? 0) > 0 : Boolean(body[field]),
  );
  if (interval < 0 || timeout < 0) throw new CheckKindError("Interval and Timeout must not be negative");
  if (interval > 0 && ttl > 0) throw new CheckKindError("Interval and TTL cannot both be specified");
  if (targets.length > 0 && interval <= 0) {
    throw new CheckKindError(
      `Interval must be > 0 for Script, HTTP, H2PING, TCP, UDP or GRPC checks (${targets[0]?.[0]} is set)`,
    );
  }
  if (targets.length > 0 && alias) {
    throw new CheckKindError(`Interval cannot be set for Alias checks (${targets[0]?.[0]} is set)`);
  }
  if (alias && ttl > 0) throw new CheckKindError("TTL must be not be set for Alias checks");
  if (targets.length > 1) {
    const names = targets.map(([field]) => field);
    throw new CheckKindError(
      `Only one of HTTP, TCP, UDP, GRPC, H2PING or ScriptArgs may be set; got ${names.join(" and ")}`,
    );
  }
  if (body.DockerContainerID && targets[0]?.[0] !== "ScriptArgs") {
    throw new CheckKindError(
      "DockerContainerID needs ScriptArgs (args): the command to run in the container",
    );
  }
  if (targets.length === 0 && !alias && ttl <= 0) throw new CheckKindError("TTL must be > 0 for TTL checks");
  if ((body.OutputMaxSize ?? 0) < 0) throw new CheckKindError("MaxOutputMaxSize must be positive");
  if ((body.FailuresBeforeWarning ?? 0) > (body.FailuresBeforeCritical ?? 0)) {
    throw new CheckKindError("FailuresBeforeWarning can't be higher than FailuresBeforeCritical");
  }
  for (const field of ["UDP", "H2PING"] as const) {
    const target = body[field];
    if (target && !isHostPort(target))
      throw new CheckKindError(`${field} must be host:port, not "${target}"`);
  }
  if (body.GRPC && !isHostPort(body.GRPC.split("/", 1)[0] ?? "")) {
    throw new CheckKindError(`GRPC must be host:port or host:port/service, not "${body.GRPC}"`);
  }
  if (alias) return "alias";
  if (ttl > 0) return "ttl";
  const [field, kind] = targets[0] ?? ["ScriptArgs", "script"];
  return field === "ScriptArgs" && body.DockerContainerID ? "docker" : kind;
}

/** `host:port` or `[v6]:port`, the port 1-65535. */
function isHostPort(target: string): boolean {
  const colon = target.lastIndexOf(":");
  if (colon <= 0) return false;
  const port = target.slice(colon + 1);
  return /^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535;
}
