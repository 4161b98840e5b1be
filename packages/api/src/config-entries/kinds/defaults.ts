import { isIP } from "node:net";
import {
  bool,
  envoyExtensions,
  expose,
  freeMap,
  int,
  list,
  meshGateway,
  metaError,
  mutualTlsMode,
  obj,
  passiveHealthCheck,
  proxyMode,
  str,
  strings,
  transparentProxy,
  upstreamLimits,
} from "../fields.js";
import { defineKind, entryBase, z } from "./common.js";

/** service-defaults and proxy-defaults. */

const upstreamConfig = z.object({
  Name: str,
  Namespace: str,
  Peer: str,
  EnvoyListenerJSON: str,
  EnvoyClusterJSON: str,
  Protocol: str,
  ConnectTimeoutMs: int,
  Limits: obj(upstreamLimits),
  PassiveHealthCheck: passiveHealthCheck,
  MeshGateway: meshGateway,
  BalanceOutboundConnections: str,
});
type UpstreamConfig = z.output<typeof upstreamConfig>;

const rateLimitRoute = z.object({
  PathExact: str,
  PathPrefix: str,
  PathRegex: str,
  RequestsPerSecond: z.number().optional(),
  RequestsMaxBurst: int,
});

const serviceDefaults = z.object({
  ...entryBase,
  Protocol: str,
  Mode: proxyMode,
  TransparentProxy: transparentProxy,
  MutualTLSMode: mutualTlsMode,
  MeshGateway: meshGateway,
  Expose: expose,
  ExternalSNI: str,
  UpstreamConfig: obj({ Overrides: list(upstreamConfig), Defaults: upstreamConfig.optional() }),
  Destination: obj({ Addresses: strings, Port: int }),
  MaxInboundConnections: int,
  LocalConnectTimeoutMs: int,
  LocalRequestTimeoutMs: int,
  BalanceInboundConnections: str,
  RateLimits: obj({
    InstanceLevel: obj({
      RequestsPerSecond: z.number().optional(),
      RequestsMaxBurst: int,
      Routes: list(rateLimitRoute),
    }),
  }),
  EnvoyExtensions: envoyExtensions,
});

const validBalance = (v: string | undefined) => v === undefined || v === "" || v === "exact_balance";

function upstreamError(u: UpstreamConfig, named: boolean): string | undefined {
  if (named) {
    if (!u.Name) return "Name is required";
    if (u.Name === "*") return "Wildcard name is not supported";
    if (u.Namespace === "*") return "Wildcard namespace is not supported";
  } else {
    if (u.Name) return "Name must be empty";
    if (u.Namespace) return "Namespace must be empty";
  }
  if (u.PassiveHealthCheck?.Interval !== undefined && u.PassiveHealthCheck.Interval < 0)
    return "passive health check interval cannot be negative";
  for (const [field, label] of [
    ["MaxConnections", "max connections"],
    ["MaxPendingRequests", "max pending requests"],
    ["MaxConcurrentRequests", "max concurrent requests"],
  ] as const) {
    if ((u.Limits?.[field] ?? 0) < 0) return `${label} cannot be negative`;
  }
  if (!validBalance(u.BalanceOutboundConnections))
    return `invalid value for balance_outbound_connections: ${u.BalanceOutboundConnections}`;
  return undefined;
}

function normalizeUpstream(u: UpstreamConfig): void {
  if (u.Protocol !== undefined) u.Protocol = u.Protocol.toLowerCase();
  if (u.ConnectTimeoutMs !== undefined && u.ConnectTimeoutMs < 0) u.ConnectTimeoutMs = 0;
}

/** An IP, or a DNS name without wildcards. */
function validAddress(address: string): boolean {
  if (isIP(address) !== 0) return true;
  return (
    address.length > 0 &&
    address.length <= 253 &&
    !address.includes("*") &&
    address
      .split(".")
      .every((label) => /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/.test(label) || label === "")
  );
}

export const serviceDefaultsKind = defineKind({
  schema: serviceDefaults,
  normalize(e) {
    e.Protocol = (e.Protocol ?? "").toLowerCase();
    e.TransparentProxy ??= {};
    e.MeshGateway ??= {};
    e.Expose ??= {};
    for (const u of e.UpstreamConfig?.Overrides ?? []) normalizeUpstream(u);
    if (e.UpstreamConfig?.Defaults) normalizeUpstream(e.UpstreamConfig.Defaults);
  },
  validate(e) {
    if (e.Name === "*") return "service-defaults name must be the name of a service, and not a wildcard";
    const meta = metaError(e.Meta);
    if (meta) return meta;
    if (!validBalance(e.BalanceInboundConnections))
      return `invalid value for balance_inbound_connections: ${e.BalanceInboundConnections}`;
    if (e.UpstreamConfig && e.Destination)
      return "UpstreamConfig and Destination are mutually exclusive for service defaults";
    for (const o of e.UpstreamConfig?.Overrides ?? []) {
      const err = upstreamError(o, true);
      if (err) return `error in upstream override for ${o.Name ?? ""}: ${err}`;
    }
    const defaults = e.UpstreamConfig?.Defaults;
    const err = defaults && upstreamError(defaults, false);
    if (err) return `error in upstream defaults: ${err}`;
    if (e.Destination) {
      const addresses = e.Destination.Addresses ?? [];
      if (addresses.length === 0) return "Destination must contain at least one valid address";
      const seen = new Set<string>();
      for (const address of addresses) {
        if (seen.has(address)) return `Duplicate address '${address}' is not allowed`;
        seen.add(address);
        if (!validAddress(address))
          return `Destination address '${address}' is invalid Could not validate address ${address} as an IP or Hostname`;
      }
      const port = e.Destination.Port ?? 0;
      if (port < 1 || port > 65535) return `Invalid Port number ${port}`;
    }
    return undefined;
  },
});

const proxyDefaults = z.object({
  ...entryBase,
  Config: freeMap,
  Mode: proxyMode,
  TransparentProxy: transparentProxy,
  MutualTLSMode: mutualTlsMode,
  MeshGateway: meshGateway,
  Expose: expose,
  AccessLogs: obj({
    Enabled: bool,
    DisableListenerLogs: bool,
    Type: z.enum(["", "file", "stderr", "stdout"], { message: "invalid access log type" }).optional(),
    Path: str,
    JSONFormat: str,
    TextFormat: str,
  }),
  EnvoyExtensions: envoyExtensions,
  FailoverPolicy: obj({ Mode: str, Regions: strings }),
  PrioritizeByLocality: obj({ Mode: str }),
});

export const proxyDefaultsKind = defineKind({
  schema: proxyDefaults,
  normalize(e) {
    // Only the global entry exists; an empty name means it.
    if (!e.Name) e.Name = "global";
    e.TransparentProxy ??= {};
    e.MeshGateway ??= {};
    e.Expose ??= {};
  },
  validate(e) {
    if (e.Name !== "global") return `invalid name ("${e.Name}"), only "global" is supported`;
    const logs = e.AccessLogs;
    if (logs?.JSONFormat && logs.TextFormat)
      return "cannot specify both access log JSONFormat and TextFormat";
    if (logs && logs.Type !== "file" && logs.Path) return `path is only valid for file type access logs`;
    return metaError(e.Meta);
  },
});
