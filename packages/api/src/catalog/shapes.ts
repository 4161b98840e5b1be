import { formatDuration } from "@cairn/duration";
import type { CatalogNode, CoordinateEntry, HealthCheck, NodeService, ServiceInstance } from "@cairn/fsm";
import { writeJson } from "@cairn/json";
import { scopedNamespace } from "../http/default-scope.js";

/**
 * Consul's JSON output records as plain objects, built once per response: the filter engine evaluates them
 * and the JSON writer encodes them as they are. Keys are inserted in the order of Consul's Go structs
 * (encoding/json writes struct fields in declaration order and map keys sorted), `omitempty` fields are left
 * out when empty, and nil slices Consul's handlers turn into `[]` are `[]`. `Namespace` follows the one rule
 * of http/default-scope.ts (written outside the default namespace only).
 */

type Json = Record<string, unknown>;

/**
 * Encodes a response built from these shapes. They hold only strings, numbers, booleans and plain
 * containers, which V8's native stringify writes many times faster than a JS walk; the one exception, an
 * integer beyond 2^53 inside a free-form Proxy.Config (kept as bigint), makes it throw, and then the
 * bigint-exact writer takes over.
 */
export function encodeShapes(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (err instanceof TypeError) return writeJson(value);
    throw err;
  }
}

/** A Go map: keys in byte order (as encoding/json writes them), values as given. */
export function goMap<V>(map: Readonly<Record<string, V>> | null | undefined): Record<string, V> {
  const out: Record<string, V> = {};
  if (!map) return out;
  for (const key of Object.keys(map).sort(byteOrder)) out[key] = map[key] as V;
  return out;
}

/** Free-form values (Proxy.Config): every nested object is a Go map. */
function goValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(goValue);
  if (typeof value === "object" && value !== null && !(value instanceof Uint8Array)) {
    const out: Json = {};
    for (const key of Object.keys(value).sort(byteOrder)) out[key] = goValue((value as Json)[key]);
    return out;
  }
  return value;
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function withNamespace(out: Json, ns: string): void {
  const scoped = scopedNamespace(ns);
  if (scoped !== undefined) out.Namespace = scoped;
}

/** structs.Node: `/catalog/nodes` entries, the `Node` of `/catalog/node` and health entries. */
export function nodeJson(n: CatalogNode): Json {
  return {
    ID: n.ID,
    Node: n.Node,
    Address: n.Address,
    Datacenter: n.Datacenter,
    TaggedAddresses: goMap(n.TaggedAddresses),
    Meta: goMap(n.Meta),
    CreateIndex: n.CreateIndex,
    ModifyIndex: n.ModifyIndex,
  };
}

function taggedServiceAddresses(s: NodeService): Json | undefined {
  const names = Object.keys(s.TaggedAddresses);
  if (names.length === 0) return undefined;
  const out: Json = {};
  for (const name of names.sort(byteOrder)) {
    const a = s.TaggedAddresses[name]!;
    out[name] = { Address: a.Address, Port: a.Port };
  }
  return out;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const int = (v: unknown): number => (typeof v === "number" ? v : 0);
const obj = (v: unknown): Json | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : undefined;

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === "" || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") return Object.keys(v).length === 0;
  return false;
}

/** Sets `key` unless the value is empty (Go's `omitempty`). */
function put(out: Json, key: string, value: unknown): void {
  if (!isEmpty(value)) out[key] = value;
}

function meshGateway(v: unknown): Json {
  const out: Json = {};
  put(out, "Mode", str(obj(v)?.Mode));
  return out;
}

function upstream(v: unknown): Json {
  const u = obj(v) ?? {};
  const out: Json = { DestinationType: str(u.DestinationType) };
  put(out, "DestinationNamespace", str(u.DestinationNamespace));
  out.DestinationName = str(u.DestinationName);
  out.Datacenter = str(u.Datacenter);
  put(out, "LocalBindAddress", str(u.LocalBindAddress));
  out.LocalBindPort = int(u.LocalBindPort);
  put(out, "Config", obj(u.Config) && goValue(u.Config));
  out.MeshGateway = meshGateway(u.MeshGateway);
  return out;
}

/** structs.ConnectProxyConfig: every field omitempty except the always-present MeshGateway and Expose. */
export function proxyJson(p: Readonly<Record<string, unknown>> | null): Json {
  const src = p ?? {};
  const out: Json = {};
  put(out, "DestinationServiceName", str(src.DestinationServiceName));
  put(out, "DestinationServiceID", str(src.DestinationServiceID));
  put(out, "LocalServiceAddress", str(src.LocalServiceAddress));
  put(out, "LocalServicePort", int(src.LocalServicePort));
  put(out, "Mode", str(src.Mode));
  put(out, "Config", obj(src.Config) && goValue(src.Config));
  put(out, "Upstreams", Array.isArray(src.Upstreams) ? src.Upstreams.map(upstream) : undefined);
  out.MeshGateway = meshGateway(src.MeshGateway);
  const expose = obj(src.Expose) ?? {};
  const exposeOut: Json = {};
  put(exposeOut, "Checks", expose.Checks === true);
  put(exposeOut, "Paths", Array.isArray(expose.Paths) ? expose.Paths.map(goValue) : undefined);
  out.Expose = exposeOut;
  put(out, "TransparentProxy", obj(src.TransparentProxy) ?? src.TransparentProxy === true);
  return out;
}

/** structs.ServiceConnect: `{}` unless Connect-native. */
export function connectJson(c: Readonly<Record<string, unknown>> | null): Json {
  return c?.Native === true ? { Native: true } : {};
}

/** structs.ServiceNode: one entry of `/catalog/service/:service` and `/catalog/connect/:service`. */
export function serviceNodeJson({ node: n, service: s }: ServiceInstance): Json {
  const out: Json = {
    ID: n.ID,
    Node: n.Node,
    Address: n.Address,
    Datacenter: n.Datacenter,
    TaggedAddresses: goMap(n.TaggedAddresses),
    NodeMeta: goMap(n.Meta),
    ServiceKind: s.Kind,
    ServiceID: s.ID,
    ServiceName: s.Service,
    ServiceTags: [...s.Tags],
    ServiceAddress: s.Address,
  };
  put(out, "ServiceTaggedAddresses", taggedServiceAddresses(s));
  out.ServiceWeights = { Passing: s.Weights.Passing, Warning: s.Weights.Warning };
  out.ServiceMeta = goMap(s.Meta);
  out.ServicePort = s.Port;
  out.ServiceEnableTagOverride = s.EnableTagOverride;
  out.ServiceProxy = proxyJson(s.Proxy);
  out.ServiceConnect = connectJson(s.Connect);
  withNamespace(out, s.Namespace);
  out.CreateIndex = s.CreateIndex;
  out.ModifyIndex = s.ModifyIndex;
  return out;
}

/** structs.NodeService: values of `/catalog/node/:node`'s Services and the `Service` of health entries. */
export function nodeServiceJson(s: NodeService): Json {
  const out: Json = {};
  put(out, "Kind", s.Kind);
  out.ID = s.ID;
  out.Service = s.Service;
  out.Tags = [...s.Tags];
  out.Address = s.Address;
  put(out, "TaggedAddresses", taggedServiceAddresses(s));
  out.Meta = goMap(s.Meta);
  put(out, "Port", s.Port);
  out.Weights = { Passing: s.Weights.Passing, Warning: s.Weights.Warning };
  out.EnableTagOverride = s.EnableTagOverride;
  out.Proxy = proxyJson(s.Proxy);
  out.Connect = connectJson(s.Connect);
  withNamespace(out, s.Namespace);
  out.CreateIndex = s.CreateIndex;
  out.ModifyIndex = s.ModifyIndex;
  return out;
}

/** Durations Consul writes as Go duration strings; TTL is written as nanoseconds (no custom marshaller). */
const DURATION_STRINGS = ["Interval", "Timeout", "DeregisterCriticalServiceAfter"] as const;
/** The rest of HealthCheckDefinition, in declaration order after the fields its MarshalJSON lifts out. */
const DEFINITION_FIELDS = [
  "HTTP",
  "TLSServerName",
  "TLSSkipVerify",
  "Header",
  "Method",
  "Body",
  "TCP",
  "UDP",
  "H2PING",
  "H2PingUseTLS",
  "ScriptArgs",
  "DockerContainerID",
  "Shell",
  "GRPC",
  "GRPCUseTLS",
  "AliasNode",
  "AliasService",
] as const;

/** A stored duration (nanoseconds, or a Go duration string) as nanoseconds; 0 when absent or unreadable. */
function durationNs(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  return 0;
}

/** structs.HealthCheckDefinition as its MarshalJSON writes it: all omitempty. */
export function definitionJson(d: Readonly<Record<string, unknown>>): Json {
  const out: Json = {};
  for (const name of DURATION_STRINGS) {
    const v = d[name];
    if (typeof v === "string") put(out, name, v === "0s" ? "" : v);
    else if (durationNs(v) !== 0) out[name] = formatDuration(durationNs(v));
    if (name === "Interval") put(out, "OutputMaxSize", int(d.OutputMaxSize));
  }
  for (const name of DEFINITION_FIELDS) {
    const v = d[name];
    put(out, name, name === "Header" && obj(v) ? goValue(v) : v);
  }
  put(out, "TTL", durationNs(d.TTL));
  return out;
}

/** structs.HealthCheck, with ServiceTags never null (as Consul's health handlers ensure). */
export function checkJson(c: HealthCheck): Json {
  const out: Json = {
    Node: c.Node,
    CheckID: c.CheckID,
    Name: c.Name,
    Status: c.Status,
    Notes: c.Notes,
    Output: c.Output,
    ServiceID: c.ServiceID,
    ServiceName: c.ServiceName,
    ServiceTags: [...c.ServiceTags],
    Type: c.Type,
    ExposedPort: 0,
    Definition: definitionJson(c.Definition),
  };
  withNamespace(out, c.Namespace);
  out.CreateIndex = c.CreateIndex;
  out.ModifyIndex = c.ModifyIndex;
  return out;
}

/** structs.CheckServiceNode: one entry of `/health/service/:service` and `/health/connect/:service`. */
export function checkServiceNodeJson(
  node: CatalogNode,
  service: NodeService,
  checks: readonly HealthCheck[],
): Json {
  return { Node: nodeJson(node), Service: nodeServiceJson(service), Checks: checks.map(checkJson) };
}

/*
 * Encoded records, cached per stored record. The state store never changes a stored record (an update
 * stores a new one), so a record's JSON is computed once and every later read that returns it splices the
 * same string: a large health read costs a walk over the records, not a re-encoding of all of them. Entries
 * go when their records are no longer referenced by any live view.
 */
const nodeCache = new WeakMap<CatalogNode, string>();
const serviceCache = new WeakMap<NodeService, string>();
const checkCache = new WeakMap<HealthCheck, string>();
/** A ServiceNode joins a service with its node: the cached string is only good for the same node record. */
const serviceNodeCache = new WeakMap<NodeService, { node: CatalogNode; json: string }>();

function cached<K extends object>(cache: WeakMap<K, string>, record: K, toJson: (r: K) => Json): string {
  let json = cache.get(record);
  if (json === undefined) {
    json = encodeShapes(toJson(record));
    cache.set(record, json);
  }
  return json;
}

export function encodeNode(n: CatalogNode): string {
  return cached(nodeCache, n, nodeJson);
}

export function encodeCheck(c: HealthCheck): string {
  return cached(checkCache, c, checkJson);
}

export function encodeServiceNode(inst: ServiceInstance): string {
  const hit = serviceNodeCache.get(inst.service);
  if (hit !== undefined && hit.node === inst.node) return hit.json;
  const json = encodeShapes(serviceNodeJson(inst));
  serviceNodeCache.set(inst.service, { node: inst.node, json });
  return json;
}

export function encodeCheckServiceNode(
  node: CatalogNode,
  service: NodeService,
  checks: readonly HealthCheck[],
): string {
  let out = `{"Node":${encodeNode(node)},"Service":${cached(serviceCache, service, nodeServiceJson)},"Checks":[`;
  for (let i = 0; i < checks.length; i++) out += (i > 0 ? "," : "") + encodeCheck(checks[i]!);
  return `${out}]}`;
}

/** structs.Coordinate as `/coordinate/nodes` lists it. */
export function coordinateJson(c: CoordinateEntry): Json {
  return {
    Node: c.Node,
    Segment: c.Segment,
    Coord: {
      Vec: [...c.Coord.Vec],
      Error: c.Coord.Error,
      Adjustment: c.Coord.Adjustment,
      Height: c.Coord.Height,
    },
  };
}
