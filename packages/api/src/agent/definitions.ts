import type { HealthStatus, ServiceAddress, ServiceSpec } from "@cairn/fsm";
import type { JsonValue } from "@cairn/json";
import type { z } from "zod";
import { catalogService } from "../catalog/registration.js";
import { HttpError } from "../http/errors.js";
import { goBody } from "../json/canonical-keys.js";
import { type CheckKind, CheckKindError, checkKind } from "./check-kind.js";
import {
  type CheckDefinitionBody,
  checkDefinitionBody,
  type ServiceDefinitionBody,
  serviceDefinitionBody,
} from "./definition-schema.js";

/**
 * Consul's service and check definitions, normalized: defaults filled in, the check's kind decided, and
 * every rule Consul's agent checks before accepting one applied. Shared by the HTTP routes and the agent's
 * configuration files, so both refuse the same things with the same one-line reasons.
 */

export type { CheckKind } from "./check-kind.js";

export interface CheckDefinition {
  readonly CheckID: string;
  readonly Name: string;
  /** "" for a node-level check. */
  readonly ServiceID: string;
  readonly Notes: string;
  /** The initial status when given; otherwise the agent's default (critical). */
  readonly Status: HealthStatus | undefined;
  readonly Kind: CheckKind;
  readonly HTTP: string;
  readonly Method: string;
  readonly Header: Readonly<Record<string, readonly string[]>>;
  readonly Body: string;
  readonly TLSServerName: string;
  readonly TLSSkipVerify: boolean;
  readonly TCP: string;
  readonly UDP: string;
  /** `host:port[/service]`. */
  readonly GRPC: string;
  readonly GRPCUseTLS: boolean;
  readonly H2PING: string;
  /** Consul's default is true once H2PING is set. */
  readonly H2PingUseTLS: boolean;
  readonly DockerContainerID: string;
  readonly Shell: string;
  /** Empty with AliasService set: the service on this agent. */
  readonly AliasNode: string;
  readonly AliasService: string;
  readonly ScriptArgs: readonly string[];
  /** Durations in nanoseconds; 0 when not set. */
  readonly IntervalNs: number;
  readonly TimeoutNs: number;
  readonly TtlNs: number;
  readonly DeregisterCriticalServiceAfterNs: number;
  readonly SuccessBeforePassing: number;
  readonly FailuresBeforeCritical: number;
  /** Already defaulted to FailuresBeforeCritical when not set, as Consul's agent does. */
  readonly FailuresBeforeWarning: number;
  readonly OutputMaxSize: number;
}

export interface ServiceDefinition {
  readonly ID: string;
  readonly Service: string;
  readonly Tags: readonly string[];
  readonly Address: string;
  readonly TaggedAddresses: Readonly<Record<string, ServiceAddress>>;
  readonly Meta: Readonly<Record<string, string>>;
  readonly Port: number;
  readonly Kind: string;
  readonly Proxy: Readonly<Record<string, unknown>> | null;
  readonly Connect: Readonly<Record<string, unknown>> | null;
  readonly EnableTagOverride: boolean;
  readonly Weights: { readonly Passing: number; readonly Warning: number };
  readonly Namespace: string;
  readonly Checks: readonly CheckDefinition[];
}

/** A definition Consul would refuse; the message is the one-line reason (the HTTP layer answers 400). */
export class DefinitionError extends Error {
  override readonly name = "DefinitionError";
}

const STATUSES: ReadonlySet<string> = new Set(["passing", "warning", "critical"]);
const ANY_ADDRESS: ReadonlySet<string> = new Set(["0.0.0.0", "::", "[::]"]);

/** A service definition from an API body or a configuration block. */
export function parseServiceDefinition(raw: unknown): ServiceDefinition {
  return toServiceDefinition(decode(serviceDefinitionBody, raw));
}

/** A check definition from `/v1/agent/check/register` or a configuration `check` block. */
export function parseCheckDefinition(raw: unknown): CheckDefinition {
  const body = decode(checkDefinitionBody, raw);
  if (!body.Name) throw new DefinitionError("Missing check name");
  return toCheckDefinition(body, body.CheckID || body.ID || body.Name, body.ServiceID ?? "");
}

/** Decodes a definition as Go would: snake_case and any letter case match the field, then validates. */
export function decode<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(goBody(schema, foldAliases(raw as JsonValue)));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ` : "";
  throw new DefinitionError(`Request decode failed: ${where}${issue?.message ?? "invalid body"}`);
}

function toServiceDefinition(body: ServiceDefinitionBody): ServiceDefinition {
  const name = body.Name ?? "";
  if (name === "") throw new DefinitionError("Missing service name");
  if (body.Address && ANY_ADDRESS.has(body.Address)) throw new DefinitionError("Invalid service address");
  const id = body.ID || name;
  const weights = body.Weights ?? undefined;
  const passing = weights?.Passing ?? 1;
  const warning = weights?.Warning ?? 1;
  if (weights !== undefined && (passing < 1 || warning < 0)) {
    throw new DefinitionError("Invalid Weights: Passing must be at least 1 and Warning at least 0");
  }
  const given = {
    ID: id,
    Service: name,
    Tags: body.Tags ?? [],
    Address: body.Address ?? "",
    TaggedAddresses: Object.fromEntries(
      Object.entries(body.TaggedAddresses ?? {}).map(([k, a]) => [
        k,
        { Address: a.Address ?? "", Port: a.Port ?? 0 },
      ]),
    ),
    Meta: body.Meta ?? {},
    Port: body.Port ?? 0,
    Kind: body.Kind ?? "",
    Proxy: body.Proxy ?? null,
    Connect: body.Connect ?? null,
    EnableTagOverride: body.EnableTagOverride ?? false,
    Weights: { Passing: passing, Warning: warning },
    Namespace: body.Namespace || "default",
  };
  // The catalog endpoint must take what anti-entropy will register there; Proxy, Connect and Weights are
  // kept as it stores them (its field names, no null members, weights it ignores as the default), so the
  // synced entry compares equal.
  const stored = asCatalogStores(given);
  const service = {
    ...given,
    Proxy: stored.Proxy ?? null,
    Connect: stored.Connect ?? null,
    Weights: stored.Weights ?? { Passing: 1, Warning: 1 },
  };
  // As Consul, a `Check` with nothing in it is no check at all.
  const bodies = [...(body.Check && !isEmpty(body.Check) ? [body.Check] : []), ...(body.Checks ?? [])];
  const checks = bodies.map((check, i) => {
    if (check.Status && !STATUSES.has(check.Status)) {
      throw new DefinitionError("Status for checks must 'passing', 'warning', 'critical'");
    }
    const defaultId = bodies.length > 1 ? `service:${id}:${i + 1}` : `service:${id}`;
    return toCheckDefinition(
      { ...check, Name: check.Name || `Service '${name}' check` },
      check.CheckID || check.ID || defaultId,
      id,
    );
  });
  return { ...service, Checks: checks };
}

function asCatalogStores(service: Readonly<Record<string, unknown>>): ServiceSpec {
  try {
    return catalogService(service);
  } catch (err) {
    if (err instanceof HttpError) throw new DefinitionError(`Validation failed: ${err.message}`);
    throw err;
  }
}

function toCheckDefinition(body: CheckDefinitionBody, checkId: string, serviceId: string): CheckDefinition {
  const status = body.Status ?? "";
  if (status !== "" && !STATUSES.has(status)) throw new DefinitionError("Bad check status");
  let kind: CheckKind;
  try {
    kind = checkKind(body);
  } catch (err) {
    if (err instanceof CheckKindError) throw new DefinitionError(`Invalid check: ${err.message}`);
    throw err;
  }
  const failuresBeforeCritical = Math.max(0, body.FailuresBeforeCritical ?? 0);
  return {
    CheckID: checkId,
    Name: body.Name ?? "",
    ServiceID: serviceId,
    Notes: body.Notes ?? "",
    Status: status === "" ? undefined : (status as HealthStatus),
    Kind: kind,
    HTTP: body.HTTP ?? "",
    Method: body.Method ?? "",
    Header: body.Header ?? {},
    Body: body.Body ?? "",
    TLSServerName: body.TLSServerName ?? "",
    TLSSkipVerify: body.TLSSkipVerify ?? false,
    TCP: body.TCP ?? "",
    UDP: body.UDP ?? "",
    GRPC: body.GRPC ?? "",
    GRPCUseTLS: body.GRPCUseTLS ?? false,
    H2PING: body.H2PING ?? "",
    H2PingUseTLS: body.H2PING ? (body.H2PingUseTLS ?? true) : false,
    DockerContainerID: body.DockerContainerID ?? "",
    Shell: body.Shell ?? "",
    AliasNode: body.AliasNode ?? "",
    AliasService: body.AliasService ?? "",
    ScriptArgs: body.ScriptArgs ?? [],
    IntervalNs: body.Interval ?? 0,
    TimeoutNs: body.Timeout ?? 0,
    TtlNs: body.TTL ?? 0,
    DeregisterCriticalServiceAfterNs: Math.max(0, body.DeregisterCriticalServiceAfter ?? 0),
    SuccessBeforePassing: Math.max(0, body.SuccessBeforePassing ?? 0),
    FailuresBeforeCritical: failuresBeforeCritical,
    FailuresBeforeWarning: Math.max(0, body.FailuresBeforeWarning ?? 0) || failuresBeforeCritical,
    OutputMaxSize: Math.max(0, body.OutputMaxSize ?? 0),
  };
}

/**
 * A definition persisted by an older Cairn, with the fields added since at their zero values (and
 * FailuresBeforeWarning at FailuresBeforeCritical, as when parsed).
 */
export function upgradeCheckDefinition(stored: CheckDefinition): CheckDefinition {
  const zero = {
    UDP: "",
    GRPC: "",
    GRPCUseTLS: false,
    H2PING: "",
    H2PingUseTLS: false,
    DockerContainerID: "",
    Shell: "",
    AliasNode: "",
    AliasService: "",
    FailuresBeforeWarning: stored.FailuresBeforeCritical,
  };
  return { ...zero, ...stored };
}

/** A decoded body with no field set to anything but a zero value (Go's CheckType.Empty). */
function isEmpty(body: Readonly<Record<string, unknown>>): boolean {
  return Object.values(body).every(
    (v) =>
      v === undefined ||
      v === null ||
      v === "" ||
      v === 0 ||
      v === false ||
      (typeof v === "object" && Object.keys(v).length === 0),
  );
}

/** Fields whose keys are the user's (map keys), never field names to fold. */
const FREE_FORM = new Set(["meta", "header", "config", "nodemeta"]);
/** Consul's other spellings of a field, beyond snake_case. */
const ALIASES: Readonly<Record<string, string>> = { args: "ScriptArgs", scriptargs: "ScriptArgs" };

/**
 * Consul accepts `enable_tag_override` for `EnableTagOverride`, `args` for `ScriptArgs` and so on (its
 * configuration files use snake_case throughout). This removes the underscores of field names, so the
 * case-insensitive field match finds them, leaving the keys of free-form maps exactly as written.
 */
export function foldAliases(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(foldAliases);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, JsonValue> = Object.create(null);
  for (const key of Object.keys(value)) {
    const folded = key.includes("_") ? key.replaceAll("_", "") : key;
    const lower = folded.toLowerCase();
    const member = value[key] as JsonValue;
    const name = ALIASES[lower] ?? folded;
    if (FREE_FORM.has(lower)) out[name] = member;
    else if (
      lower === "taggedaddresses" &&
      typeof member === "object" &&
      member !== null &&
      !Array.isArray(member)
    ) {
      const addresses: Record<string, JsonValue> = Object.create(null);
      for (const tag of Object.keys(member)) addresses[tag] = foldAliases(member[tag] as JsonValue);
      out[name] = addresses;
    } else out[name] = foldAliases(member);
  }
  return out;
}
