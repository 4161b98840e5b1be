import { compileFilter, FilterError, filterSchemas } from "@cairn/discovery";
import {
  bool,
  durationNanos,
  durationText,
  headerModifiers,
  httpHeaderMatch,
  list,
  metaError,
  num,
  obj,
  str,
  strings,
  uint,
} from "../fields.js";
import { defineKind, entryBase, z } from "./common.js";

/** service-resolver, service-splitter and service-router: the entries a discovery chain is compiled from. */

const failoverTarget = z.object({
  Service: str,
  ServiceSubset: str,
  Namespace: str,
  Datacenter: str,
  Peer: str,
});

const resolver = z.object({
  ...entryBase,
  DefaultSubset: str,
  Subsets: z.record(z.string(), z.object({ Filter: str, OnlyPassing: bool })).optional(),
  Redirect: obj({
    Service: str,
    ServiceSubset: str,
    Namespace: str,
    Datacenter: str,
    Peer: str,
    SamenessGroup: str,
  }),
  Failover: z
    .record(
      z.string(),
      z.object({
        Service: str,
        ServiceSubset: str,
        Namespace: str,
        Datacenters: strings,
        Targets: list(failoverTarget),
        Policy: obj({ Mode: str, Regions: strings }),
        SamenessGroup: str,
      }),
    )
    .optional(),
  ConnectTimeout: durationText,
  RequestTimeout: durationText,
  PrioritizeByLocality: obj({ Mode: str }),
  LoadBalancer: obj({
    Policy: str,
    RingHashConfig: obj({ MinimumRingSize: uint, MaximumRingSize: uint }),
    LeastRequestConfig: obj({ ChoiceCount: uint }),
    HashPolicies: list(
      z.object({
        Field: str,
        FieldValue: str,
        CookieConfig: obj({ Session: bool, TTL: durationNanos, Path: str }),
        SourceIP: bool,
        Terminal: bool,
      }),
    ),
  }),
});

/** Subset names end up in SNI names, so they must be DNS labels. */
const SUBSET_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const LB_POLICIES = new Set(["", "random", "round_robin", "least_request", "ring_hash", "maglev"]);
const HASH_FIELDS = new Set(["header", "cookie", "query_parameter"]);

function failoverError(
  e: z.output<typeof resolver>,
  key: string,
  f: NonNullable<z.output<typeof resolver>["Failover"]>[string],
  isSubset: (s: string) => boolean,
): string | undefined {
  const prefix = `Bad Failover["${key}"]: `;
  if (key !== "*" && !isSubset(key)) return `${prefix}not a valid subset subset`;
  const targets = f.Targets ?? [];
  const dcs = f.Datacenters ?? [];
  if (
    !f.Service &&
    !f.ServiceSubset &&
    !f.Namespace &&
    dcs.length === 0 &&
    targets.length === 0 &&
    !f.SamenessGroup
  )
    return `${prefix}one of Service, ServiceSubset, Namespace, Targets, SamenessGroup, or Datacenters is required`;
  const mode = f.Policy?.Mode ?? "";
  if (mode !== "" && mode !== "default" && mode !== "order-by-locality")
    return `${prefix}Policy must be one of '', 'default', or 'order-by-locality'`;
  if (f.ServiceSubset && (!f.Service || f.Service === e.Name) && !isSubset(f.ServiceSubset))
    return `${prefix}ServiceSubset "${f.ServiceSubset}" is not a valid subset of "${f.Service ?? ""}"`;
  if (dcs.length > 0 && targets.length > 0) return `${prefix}Targets cannot be set with Datacenters`;
  if (f.ServiceSubset && targets.length > 0) return `${prefix}Targets cannot be set with ServiceSubset`;
  if (f.Service && targets.length > 0) return `${prefix}Targets cannot be set with Service`;
  for (const [i, t] of targets.entries()) {
    const at = `Bad Failover["${key}"].Targets[${i}]: `;
    if (t.Peer && t.ServiceSubset) return `${at}Peer cannot be set with ServiceSubset`;
    if (t.Peer && t.Datacenter) return `${at}Peer cannot be set with Datacenter`;
    if (t.ServiceSubset && (!t.Service || t.Service === e.Name) && !isSubset(t.ServiceSubset))
      return `${at}ServiceSubset "${t.ServiceSubset}" is not a valid subset of "${e.Name}"`;
  }
  if (dcs.some((dc) => dc === "")) return `Bad Failover["${key}"].Datacenters: found empty datacenter`;
  return undefined;
}

function loadBalancerError(lb: NonNullable<z.output<typeof resolver>["LoadBalancer"]>): string | undefined {
  const policy = lb.Policy ?? "";
  if (!LB_POLICIES.has(policy)) return `Bad LoadBalancer policy: "${policy}" is not supported`;
  if (policy !== "ring_hash" && lb.RingHashConfig)
    return `Bad LoadBalancer configuration. RingHashConfig specified for incompatible load balancing policy "${policy}"`;
  if (policy !== "least_request" && lb.LeastRequestConfig)
    return `Bad LoadBalancer configuration. LeastRequestConfig specified for incompatible load balancing policy "${policy}"`;
  const hashBased = policy === "ring_hash" || policy === "maglev";
  if (!hashBased && (lb.HashPolicies ?? []).length > 0)
    return `Bad LoadBalancer configuration: HashPolicies specified for non-hash-based Policy: "${policy}"`;
  for (const [i, hp] of (lb.HashPolicies ?? []).entries()) {
    const at = `Bad LoadBalancer HashPolicy[${i}]: `;
    const field = hp.Field ?? "";
    if (field && !HASH_FIELDS.has(field)) return `${at}"${field}" is not a supported field`;
    if (hp.SourceIP && field)
      return `${at}A single hash policy cannot hash both a source address and a "${field}"`;
    if (hp.SourceIP && hp.FieldValue) return `${at}A FieldValue cannot be specified when hashing SourceIP`;
    if (field && !hp.FieldValue) return `${at}Field "${field}" was specified without a FieldValue`;
    if (hp.FieldValue && !field) return `${at}FieldValue requires a Field to apply to`;
    if (hp.CookieConfig && field !== "cookie") return `${at}cookie_config provided for "${field}"`;
    if (hp.CookieConfig?.Session && (hp.CookieConfig.TTL ?? 0) !== 0)
      return `${at}a session cookie cannot have an associated TTL`;
  }
  return undefined;
}

export const serviceResolverKind = defineKind({
  schema: resolver,
  validate(e) {
    const meta = metaError(e.Meta);
    if (meta) return meta;
    const subsets = e.Subsets ?? {};
    for (const [name, subset] of Object.entries(subsets)) {
      if (name === "") return "Subset defined with empty name";
      if (!SUBSET_NAME.test(name) || name.length > 63)
        return `Subset "${name}" is invalid: must be a valid DNS label (lowercase letters, digits and '-')`;
      if (subset.Filter) {
        try {
          compileFilter(subset.Filter, filterSchemas.healthService);
        } catch (err) {
          if (!(err instanceof FilterError)) throw err;
          return `Filter for subset "${name}" is not a valid expression: ${err.message}`;
        }
      }
    }
    const isSubset = (s: string) => Object.hasOwn(subsets, s);
    if (e.DefaultSubset && !isSubset(e.DefaultSubset))
      return `DefaultSubset "${e.DefaultSubset}" is not a valid subset`;
    const r = e.Redirect;
    const failovers = Object.entries(e.Failover ?? {});
    if (r) {
      if (failovers.length > 0) return "Redirect and Failover cannot both be set";
      if (!r.Service && !r.ServiceSubset && !r.Namespace && !r.Datacenter && !r.Peer && !r.SamenessGroup)
        return "Redirect is empty";
      if (r.Peer && r.ServiceSubset) return "Redirect.Peer cannot be set with Redirect.ServiceSubset";
      if (r.Peer && r.Datacenter) return "Redirect.Peer cannot be set with Redirect.Datacenter";
      if (!r.Service) {
        if (r.ServiceSubset) return "Redirect.ServiceSubset defined without Redirect.Service";
        if (r.Namespace) return "Redirect.Namespace defined without Redirect.Service";
        if (r.Peer) return "Redirect.Peer defined without Redirect.Service";
      } else if (r.ServiceSubset && r.Service === e.Name && !isSubset(r.ServiceSubset)) {
        return `Redirect.ServiceSubset "${r.ServiceSubset}" is not a valid subset of "${e.Name}"`;
      }
    }
    for (const [key, f] of failovers) {
      const err = failoverError(e, key, f, isSubset);
      if (err) return err;
    }
    if (e.ConnectTimeout?.startsWith("-")) return `Bad ConnectTimeout '${e.ConnectTimeout}', must be >= 0`;
    if (e.RequestTimeout?.startsWith("-")) return `Bad RequestTimeout '${e.RequestTimeout}', must be >= 0`;
    return e.LoadBalancer ? loadBalancerError(e.LoadBalancer) : undefined;
  },
});

const splitter = z.object({
  ...entryBase,
  Splits: list(
    z.object({
      Weight: num,
      Service: str,
      ServiceSubset: str,
      Namespace: str,
      RequestHeaders: headerModifiers,
      ResponseHeaders: headerModifiers,
    }),
  ),
});

/** Weights count in hundredths of a percent, so 33.33 + 33.33 + 33.34 is exactly 100. */
const scaled = (weight: number) => Math.round(Math.fround(weight) * 100);

export const serviceSplitterKind = defineKind({
  schema: splitter,
  normalize(e) {
    for (const s of e.Splits ?? []) s.Weight = scaled(s.Weight ?? 0) / 100;
  },
  validate(e) {
    const splits = e.Splits ?? [];
    if (splits.length === 0) return "no splits configured";
    const meta = metaError(e.Meta);
    if (meta) return meta;
    const seen = new Set<string>();
    for (const s of splits) {
      const key = JSON.stringify([s.Service || e.Name, s.ServiceSubset ?? "", s.Namespace ?? ""]);
      if (seen.has(key)) {
        return `split destination occurs more than once: service="${s.Service || e.Name}", subset="${s.ServiceSubset ?? ""}", namespace="${s.Namespace ?? ""}", partition=""`;
      }
      seen.add(key);
    }
    const sum = splits.reduce((total, s) => total + scaled(s.Weight ?? 0), 0);
    if (sum !== 100 * 100) return `the sum of all split weights must be 100, not ${(sum / 100).toFixed(6)}`;
    return undefined;
  },
});

const router = z.object({
  ...entryBase,
  Routes: list(
    z.object({
      Match: obj({
        HTTP: obj({
          PathExact: str,
          PathPrefix: str,
          PathRegex: str,
          Header: list(httpHeaderMatch),
          QueryParam: list(z.object({ Name: str, Present: bool, Exact: str, Regex: str })),
          Methods: strings,
        }),
      }),
      Destination: obj({
        Service: str,
        ServiceSubset: str,
        Namespace: str,
        PrefixRewrite: str,
        RequestTimeout: durationText,
        IdleTimeout: durationText,
        NumRetries: uint,
        RetryOnConnectFailure: bool,
        RetryOn: strings,
        RetryOnStatusCodes: list(z.number().int().nonnegative()),
        RequestHeaders: headerModifiers,
        ResponseHeaders: headerModifiers,
      }),
    }),
  ),
});

export const HTTP_METHODS = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "CONNECT",
  "OPTIONS",
  "TRACE",
]);
const RETRY_CONDITIONS = new Set([
  "5xx",
  "gateway-error",
  "reset",
  "connect-failure",
  "envoy-ratelimited",
  "retriable-4xx",
  "refused-stream",
  "cancelled",
  "deadline-exceeded",
  "internal",
  "resource-exhausted",
  "unavailable",
]);

type HeaderMatch = z.output<typeof httpHeaderMatch>;

/** One of Present, Exact, Prefix, Suffix or Regex per header match (routes and intention permissions). */
export function headerMatchError(h: HeaderMatch, at: string): string | undefined {
  if (!h.Name) return `${at} missing required Name field`;
  const parts = [h.Present, h.Exact, h.Prefix, h.Suffix, h.Regex].filter(
    (p) => p !== undefined && p !== "" && p !== false,
  );
  if (parts.length !== 1) return `${at} should only contain one of Present, Exact, Prefix, Suffix, or Regex`;
  return undefined;
}

export const serviceRouterKind = defineKind({
  schema: router,
  normalize(e) {
    for (const r of e.Routes ?? []) {
      const methods = r.Match?.HTTP?.Methods;
      if (methods) r.Match!.HTTP!.Methods = methods.map((m) => m.toUpperCase());
    }
  },
  validate(e) {
    const meta = metaError(e.Meta);
    if (meta) return meta;
    for (const [i, route] of (e.Routes ?? []).entries()) {
      const http = route.Match?.HTTP;
      let rewritable = false;
      if (http) {
        if (http.PathExact && !http.PathExact.startsWith("/"))
          return `Route[${i}] PathExact doesn't start with '/': "${http.PathExact}"`;
        if (http.PathPrefix && !http.PathPrefix.startsWith("/"))
          return `Route[${i}] PathPrefix doesn't start with '/': "${http.PathPrefix}"`;
        rewritable = Boolean(http.PathExact || http.PathPrefix);
        if ([http.PathExact, http.PathPrefix, http.PathRegex].filter(Boolean).length > 1)
          return `Route[${i}] should only contain at most one of PathExact, PathPrefix, or PathRegex`;
        for (const [j, h] of (http.Header ?? []).entries()) {
          const err = headerMatchError(h, `Route[${i}] Header[${j}]`);
          if (err) return err;
        }
        for (const [j, q] of (http.QueryParam ?? []).entries()) {
          if (!q.Name) return `Route[${i}] QueryParam[${j}] missing required Name field`;
          const parts = [q.Present, q.Exact, q.Regex].filter(
            (p) => p !== undefined && p !== "" && p !== false,
          );
          if (parts.length !== 1)
            return `Route[${i}] QueryParam[${j}] should only contain one of Present, Exact, or Regex`;
        }
        const found = new Set<string>();
        for (const m of http.Methods ?? []) {
          if (!HTTP_METHODS.has(m)) return `Route[${i}] Methods contains an invalid method "${m}"`;
          if (found.has(m)) return `Route[${i}] Methods contains "${m}" more than once`;
          found.add(m);
        }
      }
      const d = route.Destination;
      if (d?.PrefixRewrite && !rewritable)
        return `Route[${i}] cannot make use of PrefixRewrite without configuring either PathExact or PathPrefix`;
      for (const r of d?.RetryOn ?? []) {
        if (!RETRY_CONDITIONS.has(r)) return `Route[${i}] contains an invalid retry condition: "${r}"`;
      }
      if (d?.RequestTimeout?.startsWith("-")) return `Route[${i}] RequestTimeout must be >= 0`;
    }
    return undefined;
  },
});
