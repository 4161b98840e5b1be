import type { CheckSpec, HealthStatus, RegisterSpec, ServiceSpec } from "@cairn/fsm";
import { writeJson } from "@cairn/json";
import { badRequest } from "../http/errors.js";
import { printable } from "../http/query.js";
import { decodeBody } from "../json/decode-body.js";
import { singleNamespace } from "../middleware/namespace.js";
import { type CheckBody, type RegisterBody, type ServiceBody, serviceBody } from "./register-body.js";
import { requireNoNul } from "./request.js";

/**
 * Turns a decoded /catalog/register body into the state machine's registration, applying the rules Consul
 * checks before Raft (Catalog.Register and NodeService.Validate). Pure; every refusal is a 400 with one line.
 * Rules the state machine itself enforces atomically (a check's ServiceID must name a service on the node
 * once this registration's service is in) are left to it, so nothing is ever half-stored.
 */

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const STATUSES: ReadonlySet<string> = new Set(["passing", "warning", "critical"]);
const ANY_ADDRESS: ReadonlySet<string> = new Set(["0.0.0.0", "::", "[::]"]);

export interface RegistrationContext {
  /** The namespace the request named (?ns or a namespace header); undefined when it named none. */
  requestNamespace: string | undefined;
  /** Used when neither the request nor the body names one: the token's namespace, else the default. */
  fallbackNamespace: string;
  datacenter: string;
}

export interface Registration {
  spec: RegisterSpec;
  namespace: string;
}

export function toRegistration(body: RegisterBody, rc: RegistrationContext): Registration {
  const node = body.Node ?? "";
  if (node === "") throw badRequest("Must provide node");
  if (!body.Address && !body.SkipNodeUpdate) throw badRequest("Must provide address");
  if (body.ID && !UUID.test(body.ID)) throw badRequest(`Bad node ID: "${printable(body.ID)}" is not a UUID`);
  requireNoNul(node, "node name");

  const checks = [...(body.Check ? [body.Check] : []), ...(body.Checks ?? [])];
  const namespace = agreedNamespace(
    rc.requestNamespace,
    [
      ["the body", body.Namespace],
      ["Service", body.Service?.Namespace],
      ...checks.map((c, i): [string, string | null | undefined] => [`Checks[${i}]`, c.Namespace]),
    ],
    rc.fallbackNamespace,
  );

  return {
    namespace,
    spec: compact({
      ID: body.ID || undefined,
      Node: node,
      Address: body.Address ?? "",
      Datacenter: body.Datacenter || rc.datacenter,
      TaggedAddresses: body.TaggedAddresses,
      NodeMeta: body.NodeMeta,
      Service: body.Service ? toServiceSpec(body.Service, namespace) : undefined,
      Checks: checks.length > 0 ? checks.map((c) => toCheckSpec(c, namespace)) : undefined,
      SkipNodeUpdate: body.SkipNodeUpdate || undefined,
    }),
  };
}

/**
 * The namespace a write applies to: the request's (query or header) and every Namespace inside the body
 * must agree; the first one given wins, else `fallback`. A wildcard is refused.
 */
export function agreedNamespace(
  requestNamespace: string | undefined,
  inBody: readonly (readonly [string, string | null | undefined])[],
  fallback: string,
): string {
  let agreed = requestNamespace;
  let from = "the request";
  for (const [where, ns] of inBody) {
    if (!ns) continue;
    if (agreed === undefined) {
      agreed = ns;
      from = where;
    } else if (ns !== agreed) {
      throw badRequest(
        `Namespace "${printable(ns)}" in ${where} does not match namespace "${printable(agreed)}" of ${from}`,
      );
    }
  }
  requireNoNul(agreed, "namespace");
  return singleNamespace(agreed ?? fallback);
}

/**
 * `service` (a NodeService as a registration carries it) as the catalog endpoint decodes and stores it, or
 * an HttpError with the endpoint's refusal. An agent runs it before it accepts a service, since anti-entropy
 * registers the service through that endpoint (as Consul's agent runs the catalog's validation "so the sync
 * will work properly"), and keeps what it would store.
 */
export function catalogService(service: Readonly<Record<string, unknown>>): ServiceSpec {
  return toServiceSpec(decodeBody(serviceBody, writeJson(service)), "default");
}

function toServiceSpec(s: ServiceBody, namespace: string): ServiceSpec {
  const name = s.Service ?? "";
  if (name === "") throw badRequest(s.ID ? "Must provide service name with ID" : "Must provide service name");
  if (s.Address && ANY_ADDRESS.has(s.Address)) throw badRequest("Invalid service address");
  requireNoNul(name, "service name");
  requireNoNul(s.ID ?? undefined, "service ID");
  const kind = s.Kind ?? "";
  const proxy = s.Proxy ? (compact(s.Proxy) as Record<string, unknown>) : undefined;
  if (kind === "connect-proxy") {
    const destination = typeof proxy?.DestinationServiceName === "string" ? proxy.DestinationServiceName : "";
    if (destination.trim() === "")
      throw badRequest("Proxy.DestinationServiceName must be non-empty for Connect proxy services");
    if (destination === "*")
      throw badRequest("Proxy.DestinationServiceName must not be a wildcard for Connect proxy services");
    if (!s.Port) throw badRequest("Port or SocketPath must be set for a Connect proxy");
    if (s.Connect?.Native) throw badRequest("A Proxy cannot also be Connect Native, only typical services");
  }
  const weights = s.Weights;
  const validWeights =
    weights &&
    weights.Passing >= 1 &&
    weights.Warning >= 0 &&
    weights.Passing <= 65535 &&
    weights.Warning <= 65535;
  return compact({
    ID: s.ID || undefined,
    Service: name,
    Tags: s.Tags,
    Address: s.Address || undefined,
    TaggedAddresses: s.TaggedAddresses
      ? Object.fromEntries(
          Object.entries(s.TaggedAddresses).map(([k, a]) => [
            k,
            { Address: a.Address ?? "", Port: a.Port ?? 0 },
          ]),
        )
      : undefined,
    Meta: s.Meta,
    Port: s.Port,
    Kind: kind || undefined,
    Proxy: proxy,
    Connect: s.Connect ? compact(s.Connect) : undefined,
    EnableTagOverride: s.EnableTagOverride,
    Weights: validWeights ? { Passing: weights.Passing, Warning: weights.Warning } : undefined,
    Namespace: namespace,
  });
}

function toCheckSpec(c: CheckBody, namespace: string): CheckSpec {
  const status = c.Status ?? "";
  if (status !== "" && !STATUSES.has(status)) {
    throw badRequest(`Invalid check status "${printable(status)}": must be passing, warning or critical`);
  }
  if (!c.CheckID && !c.Name) throw badRequest("Missing check ID");
  requireNoNul(c.CheckID || c.Name || undefined, "check ID");
  requireNoNul(c.Node ?? undefined, "check node name");
  return compact({
    Node: c.Node || undefined,
    CheckID: c.CheckID || undefined,
    Name: c.Name || undefined,
    Status: (status || undefined) as HealthStatus | undefined,
    Notes: c.Notes ?? undefined,
    Output: c.Output ?? undefined,
    ServiceID: c.ServiceID || undefined,
    Type: c.Type || checkType(c.Definition) || undefined,
    Definition: c.Definition ? compact(c.Definition) : undefined,
    Namespace: namespace,
  });
}

/**
 * The kind of check a definition describes, as Consul fills in Type for checks registered straight into
 * the catalog (CheckType.Type(), in its order of precedence).
 */
function checkType(d: CheckBody["Definition"]): string {
  if (!d) return "";
  if (d.TTL) return "ttl";
  if (d.HTTP && d.Interval) return "http";
  if (d.TCP && d.Interval) return "tcp";
  if (d.ScriptArgs && d.ScriptArgs.length > 0 && d.Interval && !d.DockerContainerID) return "script";
  if (d.DockerContainerID && d.Interval) return "docker";
  if (d.GRPC && d.Interval) return "grpc";
  if (d.AliasService) return "alias";
  if (d.H2PING && d.Interval) return "h2ping";
  return "";
}

/** Drops null and undefined members, so the command carries only what the client set. */
function compact<T extends object>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== null && v !== undefined) out[k] = v;
  return out as T;
}
