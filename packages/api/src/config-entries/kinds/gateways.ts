import {
  bool,
  headerModifiers,
  int,
  list,
  metaError,
  obj,
  passiveHealthCheck,
  str,
  strings,
  upstreamLimits,
} from "../fields.js";
import { defineKind, entryBase, z } from "./common.js";

/** ingress-gateway and terminating-gateway. */

const sds = obj({ ClusterName: str, CertResource: str });
const tls = obj({
  Enabled: bool,
  TLSMinVersion: str,
  TLSMaxVersion: str,
  CipherSuites: strings,
  SDS: sds,
});

const ingress = z.object({
  ...entryBase,
  TLS: tls,
  Defaults: obj({ ...upstreamLimits, PassiveHealthCheck: passiveHealthCheck }),
  Listeners: list(
    z.object({
      Port: int,
      Protocol: str,
      TLS: tls,
      Services: list(
        z.object({
          Name: str,
          Namespace: str,
          Hosts: strings,
          TLS: obj({ SDS: sds }),
          RequestHeaders: headerModifiers,
          ResponseHeaders: headerModifiers,
          ...upstreamLimits,
          PassiveHealthCheck: passiveHealthCheck,
        }),
      ),
    }),
  ),
});

const LISTENER_PROTOCOLS = new Set(["tcp", "http", "http2", "grpc"]);
const TLS_VERSIONS = new Set(["", "TLS_AUTO", "TLSv1_0", "TLSv1_1", "TLSv1_2", "TLSv1_3"]);

function tlsError(t: z.output<typeof tls>, at: string): string | undefined {
  if (!t) return undefined;
  for (const v of [t.TLSMinVersion, t.TLSMaxVersion]) {
    if (v !== undefined && !TLS_VERSIONS.has(v)) return `${at}TLS: unsupported TLS version "${v}"`;
  }
  return undefined;
}

export const ingressGatewayKind = defineKind({
  schema: ingress,
  normalize(e) {
    for (const l of e.Listeners ?? []) l.Protocol = (l.Protocol || "tcp").toLowerCase();
  },
  validate(e) {
    const meta = metaError(e.Meta);
    if (meta) return meta;
    const err = tlsError(e.TLS, "");
    if (err) return err;
    const ports = new Set<number>();
    for (const l of e.Listeners ?? []) {
      const port = l.Port ?? 0;
      if (ports.has(port)) return `port ${port} declared on two listeners`;
      ports.add(port);
      const protocol = l.Protocol ?? "tcp";
      if (!LISTENER_PROTOCOLS.has(protocol))
        return `protocol must be 'tcp', 'http', 'http2', or 'grpc'. '${protocol}' is an unsupported protocol`;
      const services = l.Services ?? [];
      if (services.length === 0) return `No service declared for listener with port ${port}`;
      if (protocol === "tcp" && services.length > 1)
        return `Multiple services per listener are only supported for L7 protocols, 'http', 'grpc' and 'http2'`;
      const listenerTls = tlsError(l.TLS, `Listener[${port}] `);
      if (listenerTls) return listenerTls;
      const seen = new Set<string>();
      for (const s of services) {
        if (!s.Name) return `Service name cannot be blank (listener on port ${port})`;
        if (s.Name === "*" && protocol !== "http" && protocol !== "http2" && protocol !== "grpc")
          return `Wildcard service name is only valid for protocol 'http'`;
        if ((s.Hosts ?? []).length > 0 && protocol === "tcp")
          return `Associating hosts to a service is not supported for the ${protocol} protocol`;
        if (s.Name === "*" && (s.Hosts ?? []).length > 0)
          return `Associating hosts to a wildcard service is not supported`;
        const key = `${s.Namespace ?? ""}/${s.Name}`;
        if (seen.has(key)) return `Service ${s.Name} declared more than once on listener with port ${port}`;
        seen.add(key);
      }
    }
    return undefined;
  },
});

const terminating = z.object({
  ...entryBase,
  Services: list(
    z.object({
      Name: str,
      Namespace: str,
      CAFile: str,
      CertFile: str,
      KeyFile: str,
      SNI: str,
      DisableAutoHostRewrite: bool,
    }),
  ),
});

export const terminatingGatewayKind = defineKind({
  schema: terminating,
  validate(e) {
    const meta = metaError(e.Meta);
    if (meta) return meta;
    const seen = new Set<string>();
    for (const s of e.Services ?? []) {
      if (!s.Name) return "Service name cannot be blank.";
      if (s.Namespace === "*") return "Wildcard namespace is not supported for services";
      const key = `${s.Namespace ?? ""}/${s.Name}`;
      if (seen.has(key)) return `Service "${s.Name}" was specified more than once within a namespace`;
      seen.add(key);
      if ((s.CertFile && !s.KeyFile) || (s.KeyFile && !s.CertFile))
        return `Service "${s.Name}" must have a CertFile and a KeyFile specified for TLS origination`;
    }
    return undefined;
  },
});
