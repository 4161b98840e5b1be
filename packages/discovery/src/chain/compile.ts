import { customizationHash } from "./hash.js";
import {
  ChainCompileError,
  type ChainNode,
  type ChainTarget,
  type CompiledChain,
  type CompileRequest,
  type ConfigEntryFields,
  type ResolverNode,
  type RouterNode,
  type SplitterNode,
} from "./types.js";
import { effectiveWeight, float32Json } from "./weight.js";

/**
 * Compiles the config entries that shape traffic to a service into Consul's discovery chain: an optional
 * router (only the chain's own service's), splitters (followed through other services' splitters, then
 * flattened with multiplied weights), and resolver nodes per target (redirects followed, default subsets
 * applied, failover targets listed), with every service on the way sharing one protocol. Pure: the same
 * request gives the same chain.
 */
export function compileChain(req: CompileRequest): CompiledChain {
  return new Compiler(req).compile();
}

const DEFAULT_CONNECT_TIMEOUT = "5s";
const L7_PROTOCOLS: ReadonlySet<string> = new Set(["http", "http2", "grpc"]);
/** The catch-all route the compiler appends to every router. */
const catchAllRoute = (service: string): ConfigEntryFields => ({
  Match: { HTTP: { PathPrefix: "/" } },
  Destination: { Service: service },
});

const text = (e: ConfigEntryFields | undefined, field: string): string => {
  const v = e?.[field];
  return typeof v === "string" ? v : "";
};
const record = (e: ConfigEntryFields | undefined, field: string): ConfigEntryFields | undefined => {
  const v = e?.[field];
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as ConfigEntryFields) : undefined;
};
const items = (e: ConfigEntryFields | undefined, field: string): ConfigEntryFields[] => {
  const v = e?.[field];
  return Array.isArray(v) ? v.filter((x): x is ConfigEntryFields => typeof x === "object" && x !== null) : [];
};
const strings = (e: ConfigEntryFields | undefined, field: string): string[] => {
  const v = e?.[field];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
};
const hasFields = (e: ConfigEntryFields | undefined): boolean => e !== undefined && Object.keys(e).length > 0;

/** A resolver that sets none of its routing fields is reported as the default one. */
function isDefaultResolver(r: ConfigEntryFields | undefined): boolean {
  return (
    text(r, "DefaultSubset") === "" &&
    !hasFields(record(r, "Subsets")) &&
    record(r, "Redirect") === undefined &&
    !hasFields(record(r, "Failover")) &&
    text(r, "ConnectTimeout") === "" &&
    text(r, "RequestTimeout") === "" &&
    record(r, "LoadBalancer") === undefined
  );
}

interface ServiceRef {
  readonly name: string;
  readonly ns: string;
}

/** The parts of a target another entry may change (empty: keep). */
interface TargetChange {
  readonly service?: string;
  readonly subset?: string;
  readonly ns?: string;
  readonly dc?: string;
}

class Compiler {
  readonly #req: CompileRequest;
  readonly #nodes = new Map<string, ChainNode>();
  readonly #splitterNodes = new Map<string, SplitterNode>();
  readonly #resolverNodes = new Map<string, ResolverNode>();
  readonly #targets = new Map<string, ChainTarget>();
  readonly #retained = new Set<string>();
  readonly #customized = { meshGateway: false, protocol: false, connectTimeout: false };
  readonly #disableAdvanced: boolean;
  #usesAdvanced = false;
  #protocol = "";

  constructor(req: CompileRequest) {
    this.#req = req;
    const override = req.overrides?.protocol;
    this.#disableAdvanced = override !== undefined && override !== "" && !L7_PROTOCOLS.has(override);
  }

  compile(): CompiledChain {
    const req = this.#req;
    const startNode = this.#assemble();
    this.#detectCircularReferences(startNode);
    this.#flattenSplitters();
    this.#removeUnused(startNode);
    if (!L7_PROTOCOLS.has(this.#protocol) && this.#usesAdvanced) {
      throw new ChainCompileError(
        `discovery chain "${req.serviceName}" uses a protocol "${this.#protocol}" that does not permit advanced routing or splitting behavior`,
      );
    }
    const override = req.overrides?.protocol ?? "";
    if (override !== "" && override !== this.#protocol) {
      this.#protocol = override;
      this.#customized.protocol = true;
    }
    const chain: CompiledChain = {
      ServiceName: req.serviceName,
      Namespace: req.namespace,
      Datacenter: req.datacenter,
      Protocol: this.#protocol,
      StartNode: startNode,
      Nodes: sortedRecord(this.#nodes),
      Targets: sortedRecord(new Map([...this.#targets].filter(([id]) => this.#retained.has(id)))),
    };
    const c = this.#customized;
    if (c.meshGateway || c.protocol || c.connectTimeout) {
      const o = req.overrides ?? {};
      return {
        ...chain,
        CustomizationHash: customizationHash(
          c.meshGateway ? (o.meshGatewayMode ?? "") : "",
          c.protocol ? (o.protocol ?? "") : "",
          c.connectTimeout ? (o.connectTimeout?.nanos ?? 0n) : 0n,
        ),
      };
    }
    return chain;
  }

  /** Builds the graph from the chain's service down; returns the start node's key. */
  #assemble(): string {
    const { serviceName, namespace, entries } = this.#req;
    let router = entries.router(serviceName, namespace);
    if (router !== undefined && this.#disableAdvanced) {
      router = undefined;
      this.#customized.protocol = true;
    }
    if (router === undefined) {
      return this.#splitterOrResolver(this.#newTarget({ service: serviceName }));
    }
    const routerName = text(router, "Name") || serviceName;
    const node: RouterNode = { Type: "router", Name: routerName, Routes: [] };
    this.#usesAdvanced = true;
    this.#recordProtocol({ name: routerName, ns: namespace });
    for (const route of items(router, "Routes")) {
      const dest = record(route, "Destination");
      const service = text(dest, "Service") || serviceName;
      const ns = text(dest, "Namespace") || namespace;
      const subset = text(dest, "ServiceSubset");
      const target = this.#newTarget({ service, subset, ns });
      const next = subset === "" ? this.#splitterOrResolver(target) : this.#resolver(target, false).key;
      node.Routes.push({ Definition: route, NextNode: next });
    }
    const fallback = this.#splitterOrResolver(this.#newTarget({ service: routerName, ns: namespace }));
    node.Routes.push({ Definition: catchAllRoute(routerName), NextNode: fallback });
    const key = `router:${routerName}`;
    this.#nodes.set(key, node);
    return key;
  }

  #newTarget(change: TargetChange & { service: string }): ChainTarget {
    const req = this.#req;
    const service = change.service;
    const subset = change.subset ?? "";
    const ns = change.ns || req.namespace;
    const dc = change.dc || req.datacenter;
    const id = subset ? `${subset}.${service}.${ns}.${dc}` : `${service}.${ns}.${dc}`;
    const existing = this.#targets.get(id);
    if (existing) return existing;
    const sni = `${id}.internal.${req.trustDomain}`;
    const target: ChainTarget = {
      ID: id,
      Service: service,
      ...(subset ? { ServiceSubset: subset } : {}),
      Namespace: ns,
      Datacenter: dc,
      MeshGateway: {},
      Subset: {},
      SNI: sni,
      Name: sni,
    };
    this.#targets.set(id, target);
    return target;
  }

  /** A target with some parts replaced; naming another service drops the subset. */
  #rewrite(t: ChainTarget, change: TargetChange): ChainTarget {
    const service = change.service || t.Service;
    let subset = service !== t.Service ? "" : (t.ServiceSubset ?? "");
    if (change.subset) subset = change.subset;
    return this.#newTarget({ service, subset, ns: change.ns || t.Namespace, dc: change.dc || t.Datacenter });
  }

  #splitterOrResolver(target: ChainTarget): string {
    const splitter = this.#splitter({ name: target.Service, ns: target.Namespace });
    return splitter ?? this.#resolver(target, false).key;
  }

  /** The splitter node of a service, following splits into other services' splitters; undefined when none. */
  #splitter(sid: ServiceRef): string | undefined {
    const key = `splitter:${sid.name}`;
    const cacheKey = `${sid.ns}\u0000${sid.name}`;
    if (this.#splitterNodes.has(cacheKey)) return key;
    let splitter = this.#req.entries.splitter(sid.name, sid.ns);
    if (splitter !== undefined && this.#disableAdvanced) {
      splitter = undefined;
      this.#customized.protocol = true;
    }
    if (splitter === undefined) return undefined;
    const node: SplitterNode = { Type: "splitter", Name: sid.name, Splits: [] };
    // Recorded before recursing, so a loop back here ends (and is reported by the circular check).
    this.#splitterNodes.set(cacheKey, node);
    this.#nodes.set(key, node);
    for (const split of items(splitter, "Splits")) {
      const weight = typeof split.Weight === "number" ? split.Weight : 0;
      const service = text(split, "Service") || sid.name;
      const ns = text(split, "Namespace") || sid.ns;
      const subset = text(split, "ServiceSubset");
      const compiled = { Weight: weight, NextNode: "" };
      node.Splits.push(compiled);
      if ((service !== sid.name || ns !== sid.ns) && subset === "") {
        const next = this.#splitter({ name: service, ns });
        if (next !== undefined) {
          compiled.NextNode = next;
          continue;
        }
      }
      compiled.NextNode = this.#resolver(this.#newTarget({ service, subset, ns }), false).key;
    }
    this.#usesAdvanced = true;
    return key;
  }

  #recordProtocol(sid: ServiceRef): void {
    const { entries, serviceName } = this.#req;
    let protocol = text(entries.serviceDefaults(sid.name, sid.ns), "Protocol");
    if (protocol === "") {
      const config = record(entries.proxyDefaults(), "Config");
      const fallback = config?.protocol ?? config?.Protocol;
      protocol = typeof fallback === "string" ? fallback : "";
    }
    protocol = protocol === "" ? "tcp" : protocol.toLowerCase();
    if (this.#protocol === "") this.#protocol = protocol;
    else if (this.#protocol !== protocol) {
      throw new ChainCompileError(
        `discovery chain "${serviceName}" uses inconsistent protocols; service "${sid.name}" has "${protocol}" which is not "${this.#protocol}"`,
      );
    }
  }

  /**
   * The resolver node of a target: redirects and the default subset rewrite the target first (a cycle of
   * redirects is an error), then failover targets are resolved the same way without nodes of their own.
   */
  #resolver(start: ChainTarget, forFailover: boolean): { key: string; node: ResolverNode } {
    const { entries } = this.#req;
    const history: string[] = [];
    let target = start;
    let resolver: ConfigEntryFields | undefined;
    for (;;) {
      const cached = this.#resolverNodes.get(target.ID);
      if (cached) return { key: `resolver:${target.ID}`, node: cached };
      const sid = { name: target.Service, ns: target.Namespace };
      this.#recordProtocol(sid);
      resolver = entries.resolver(sid.name, sid.ns);
      if (history.includes(target.ID)) {
        throw new ChainCompileError(
          `detected circular resolver redirect: [${[...history, target.ID].join(" -> ")}]`,
        );
      }
      history.push(target.ID);
      const redirect = record(resolver, "Redirect");
      if (redirect) {
        const redirected = this.#rewrite(target, {
          service: text(redirect, "Service"),
          subset: text(redirect, "ServiceSubset"),
          ns: text(redirect, "Namespace"),
          dc: text(redirect, "Datacenter"),
        });
        if (redirected.ID !== target.ID) {
          target = redirected;
          continue;
        }
      }
      const defaultSubset = text(resolver, "DefaultSubset");
      if (!target.ServiceSubset && defaultSubset !== "") {
        target = this.#rewrite(target, { subset: defaultSubset });
        continue;
      }
      break;
    }
    const subsets = record(resolver, "Subsets") ?? {};
    const subset = target.ServiceSubset;
    if (subset && !Object.hasOwn(subsets, subset)) {
      throw new ChainCompileError(`service "${target.Service}" does not have a subset named "${subset}"`);
    }
    const node: ResolverNode = {
      Type: "resolver",
      Name: target.ID,
      Resolver: {
        ...(isDefaultResolver(resolver) ? { Default: true as const } : {}),
        ConnectTimeout: this.#connectTimeout(resolver),
        Target: target.ID,
      },
    };
    this.#shapeTarget(target, resolver, subset ? record(subsets, subset) : undefined);
    this.#retained.add(target.ID);
    const key = `resolver:${target.ID}`;
    if (forFailover) return { key, node };
    this.#resolverNodes.set(target.ID, node);
    this.#nodes.set(key, node);

    const failovers = record(resolver, "Failover") ?? {};
    const failover = record(failovers, subset ?? "") ?? record(failovers, "*");
    if (failover) {
      const change = {
        service: text(failover, "Service"),
        subset: text(failover, "ServiceSubset"),
        ns: text(failover, "Namespace"),
      };
      const dcs = strings(failover, "Datacenters");
      const listed = items(failover, "Targets");
      const candidates =
        dcs.length > 0
          ? dcs.map((dc) => this.#rewrite(target, { ...change, dc }))
          : listed.length > 0
            ? listed.map((t) =>
                this.#rewrite(target, {
                  service: text(t, "Service"),
                  subset: text(t, "ServiceSubset"),
                  ns: text(t, "Namespace"),
                  dc: text(t, "Datacenter"),
                }),
              )
            : [this.#rewrite(target, change)];
      const others = candidates.filter((t) => t.ID !== target.ID);
      if (others.length > 0) {
        node.Resolver.Failover = { Targets: others.map((t) => this.#resolver(t, true).node.Resolver.Target) };
      }
    }
    return { key, node };
  }

  #connectTimeout(resolver: ConfigEntryFields | undefined): string {
    const configured = text(resolver, "ConnectTimeout");
    // Consul uses 5s for any timeout below 1ns.
    const timeout =
      configured === "" || /^(-|0[a-zµ]*$)/.test(configured) ? DEFAULT_CONNECT_TIMEOUT : configured;
    const override = this.#req.overrides?.connectTimeout;
    if (override !== undefined && override.nanos > 0n && override.text !== timeout) {
      this.#customized.connectTimeout = true;
      return override.text;
    }
    return timeout;
  }

  /** Subset filter, external SNI and mesh gateway mode of a resolved target. */
  #shapeTarget(
    target: ChainTarget,
    resolver: ConfigEntryFields | undefined,
    subset: ConfigEntryFields | undefined,
  ): void {
    const { entries, overrides } = this.#req;
    const filter = text(subset, "Filter");
    const onlyPassing = subset?.OnlyPassing === true;
    target.Subset = { ...(filter ? { Filter: filter } : {}), ...(onlyPassing ? { OnlyPassing: true } : {}) };
    const defaults = entries.serviceDefaults(target.Service, target.Namespace);
    const externalSni = text(defaults, "ExternalSNI");
    if (externalSni !== "") {
      target.SNI = externalSni;
      target.External = true;
      const refuse = (what: string) =>
        new ChainCompileError(
          `service "${target.Service}" has an external SNI set; cannot define ${what} for external services`,
        );
      if (record(resolver, "Redirect")) throw refuse("redirects");
      if (hasFields(record(resolver, "Subsets"))) throw refuse("subsets");
      if (hasFields(record(resolver, "Failover"))) throw refuse("failover");
      target.MeshGateway = {};
      return;
    }
    let mode = text(record(defaults, "MeshGateway"), "Mode");
    if (mode === "") mode = text(record(entries.proxyDefaults(), "MeshGateway"), "Mode");
    const override = overrides?.meshGatewayMode ?? "";
    if (override !== "" && override !== mode) {
      mode = override;
      this.#customized.meshGateway = true;
    }
    target.MeshGateway = mode === "" ? {} : { Mode: mode };
  }

  #detectCircularReferences(start: string): void {
    const path: string[] = [];
    const visit = (key: string): void => {
      if (path.includes(key)) {
        throw new ChainCompileError(`detected circular reference: [${[...path, key].join(" -> ")}]`);
      }
      path.push(key);
      const node = this.#nodes.get(key);
      if (node?.Type === "router") for (const r of node.Routes) visit(r.NextNode);
      if (node?.Type === "splitter") for (const s of node.Splits) visit(s.NextNode);
      path.pop();
    };
    visit(start);
  }

  /** A split leading to another splitter is replaced by that splitter's splits, weights multiplied. */
  #flattenSplitters(): void {
    for (let changed = true; changed; ) {
      changed = false;
      for (const node of this.#nodes.values()) {
        if (node.Type !== "splitter") continue;
        const flat: SplitterNode["Splits"] = [];
        for (const split of node.Splits) {
          const next = this.#nodes.get(split.NextNode);
          if (next?.Type !== "splitter") {
            flat.push(split);
            continue;
          }
          changed = true;
          for (const inner of next.Splits) {
            flat.push({ Weight: effectiveWeight(split.Weight, inner.Weight), NextNode: inner.NextNode });
          }
        }
        node.Splits = flat;
      }
    }
    for (const node of this.#nodes.values()) {
      if (node.Type === "splitter") for (const s of node.Splits) s.Weight = float32Json(s.Weight);
    }
  }

  #removeUnused(start: string): void {
    const seen = new Set<string>();
    const todo = [start];
    for (let key = todo.pop(); key !== undefined; key = todo.pop()) {
      if (seen.has(key)) continue;
      seen.add(key);
      const node = this.#nodes.get(key);
      if (node?.Type === "router") todo.push(...node.Routes.map((r) => r.NextNode));
      if (node?.Type === "splitter") todo.push(...node.Splits.map((s) => s.NextNode));
    }
    for (const key of [...this.#nodes.keys()]) if (!seen.has(key)) this.#nodes.delete(key);
  }
}

/** Go marshals maps with sorted keys. */
function sortedRecord<V>(map: ReadonlyMap<string, V>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const key of [...map.keys()].sort()) out[key] = map.get(key)!;
  return out;
}
