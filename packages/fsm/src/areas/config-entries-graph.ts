/**
 * Cross-entry checks on a proposed config entry change, as Consul's state store makes them before it writes
 * (a speculative compile of every discovery chain the change can affect): a router or splitter needs an L7
 * protocol, every subset a chain reaches must exist in its service's resolver, and an ingress and a
 * terminating gateway may not share a name. Pure over a lookup, so it runs inside apply deterministically.
 */

type Entry = Readonly<Record<string, unknown>>;

export interface EntryLookup {
  get(kind: string, ns: string, name: string): Entry | undefined;
  /** Every entry of a kind in a namespace. */
  list(kind: string, ns: string): readonly Entry[];
}

/** Where proxy-defaults (and so the cluster-wide default protocol) live. */
const GLOBAL_NS = "default";
const L7_PROTOCOLS = new Set(["http", "http2", "grpc"]);
const CHAIN_KINDS = ["service-router", "service-splitter", "service-resolver"] as const;

const text = (e: Entry | undefined, field: string): string => {
  const v = e?.[field];
  return typeof v === "string" ? v : "";
};
const record = (e: Entry | undefined, field: string): Entry | undefined => {
  const v = e?.[field];
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Entry) : undefined;
};
const items = (e: Entry | undefined, field: string): Entry[] => {
  const v = e?.[field];
  return Array.isArray(v) ? v.filter((x): x is Entry => typeof x === "object" && x !== null) : [];
};

/** `next` undefined means the entry is being deleted. Returns Consul's one-line refusal, or undefined. */
export function configGraphError(
  base: EntryLookup,
  kind: string,
  ns: string,
  name: string,
  next: Entry | undefined,
): string | undefined {
  const lookup: EntryLookup = {
    get: (k, n, nm) => (k === kind && n === ns && nm === name ? next : base.get(k, n, nm)),
    list: (k, n) => {
      const others = base.list(k, n).filter((e) => !(k === kind && n === ns && text(e, "Name") === name));
      return k === kind && n === ns && next ? [...others, next] : others;
    },
  };
  switch (kind) {
    case "ingress-gateway":
    case "terminating-gateway": {
      const other = kind === "ingress-gateway" ? "terminating-gateway" : "ingress-gateway";
      if (next && base.get(other, ns, name)) {
        return `cannot create a "${kind}" config entry with name "${name}", a "${other}" config entry with that name already exists`;
      }
      return undefined;
    }
    case "proxy-defaults":
    case "service-defaults":
    case "service-router":
    case "service-splitter":
    case "service-resolver":
      for (const chain of affectedChains(lookup, kind, ns, name)) {
        const err = compileCheck(lookup, chain.ns, chain.name);
        if (err) return err;
      }
      return undefined;
    default:
      return undefined;
  }
}

interface ServiceRef {
  readonly ns: string;
  readonly name: string;
}

/** The chains a change can break: every chain for proxy-defaults, else the service's own and those linking to it. */
function affectedChains(lookup: EntryLookup, kind: string, ns: string, name: string): ServiceRef[] {
  const out = new Map<string, ServiceRef>();
  const add = (ref: ServiceRef) => out.set(`${ref.ns}\u0000${ref.name}`, ref);
  const namespaces = kind === "proxy-defaults" ? undefined : [ns];
  if (kind !== "proxy-defaults") add({ ns, name });
  for (const chainKind of CHAIN_KINDS) {
    for (const n of namespaces ?? [ns, GLOBAL_NS]) {
      for (const e of lookup.list(chainKind, n)) {
        const self = { ns: n, name: text(e, "Name") };
        if (
          kind === "proxy-defaults" ||
          relatedServices(chainKind, e, self).some((r) => r.ns === ns && r.name === name)
        )
          add(self);
      }
    }
  }
  return [...out.values()];
}

function relatedServices(kind: string, e: Entry, self: ServiceRef): ServiceRef[] {
  const ref = (x: Entry | undefined): ServiceRef => ({
    ns: text(x, "Namespace") || self.ns,
    name: text(x, "Service") || self.name,
  });
  switch (kind) {
    case "service-router":
      return items(e, "Routes").map((r) => ref(record(r, "Destination")));
    case "service-splitter":
      return items(e, "Splits").map(ref);
    default: {
      const out: ServiceRef[] = [];
      const redirect = record(e, "Redirect");
      if (redirect) out.push(ref(redirect));
      for (const f of Object.values(record(e, "Failover") ?? {})) {
        const failover = f as Entry;
        const targets = items(failover, "Targets");
        if (targets.length === 0) out.push(ref(failover));
        for (const t of targets) out.push(ref(t));
      }
      return out;
    }
  }
}

function protocolOf(lookup: EntryLookup, ref: ServiceRef): string {
  const own = text(lookup.get("service-defaults", ref.ns, ref.name), "Protocol").toLowerCase();
  if (own) return own;
  const global = record(lookup.get("proxy-defaults", GLOBAL_NS, "global"), "Config");
  const fallback = global?.protocol ?? global?.Protocol;
  return typeof fallback === "string" && fallback !== "" ? fallback.toLowerCase() : "tcp";
}

/** Walks one chain as the compiler would, reporting the first problem. */
function compileCheck(lookup: EntryLookup, ns: string, name: string): string | undefined {
  let advanced = false;
  const visited = new Set<string>();
  const once = (key: string): boolean => {
    if (visited.has(key)) return false;
    visited.add(key);
    return true;
  };

  const resolve = (svc: ServiceRef, subset: string, redirected: boolean): string | undefined => {
    if (!once(`t\u0000${svc.ns}\u0000${svc.name}\u0000${subset}\u0000${redirected}`)) return undefined;
    const resolver = lookup.get("service-resolver", svc.ns, svc.name);
    const redirect = record(resolver, "Redirect");
    if (redirect && !redirected) {
      const to = { ns: text(redirect, "Namespace") || svc.ns, name: text(redirect, "Service") || svc.name };
      const toSubset = text(redirect, "ServiceSubset");
      if (to.ns !== svc.ns || to.name !== svc.name || toSubset !== subset) return resolve(to, toSubset, true);
    }
    const wanted = subset || text(resolver, "DefaultSubset");
    if (wanted && !Object.hasOwn(record(resolver, "Subsets") ?? {}, wanted)) {
      return `service "${svc.name}" does not have a subset named "${wanted}"`;
    }
    for (const f of Object.values(record(resolver, "Failover") ?? {})) {
      const failover = f as Entry;
      for (const t of [failover, ...items(failover, "Targets")]) {
        const targetSubset = text(t, "ServiceSubset");
        if (!targetSubset) continue;
        const to = { ns: text(t, "Namespace") || svc.ns, name: text(t, "Service") || svc.name };
        const subsets = record(lookup.get("service-resolver", to.ns, to.name), "Subsets") ?? {};
        if (!Object.hasOwn(subsets, targetSubset))
          return `service "${to.name}" does not have a subset named "${targetSubset}"`;
      }
    }
    return undefined;
  };

  const split = (svc: ServiceRef): string | undefined => {
    if (!once(`s\u0000${svc.ns}\u0000${svc.name}`)) return undefined;
    const splitter = lookup.get("service-splitter", svc.ns, svc.name);
    if (!splitter) return resolve(svc, "", false);
    advanced = true;
    for (const s of items(splitter, "Splits")) {
      const to = { ns: text(s, "Namespace") || svc.ns, name: text(s, "Service") || svc.name };
      const subset = text(s, "ServiceSubset");
      const same = to.ns === svc.ns && to.name === svc.name;
      const err = subset || same ? resolve(to, subset, false) : split(to);
      if (err) return err;
    }
    return undefined;
  };

  const start = { ns, name };
  const router = lookup.get("service-router", ns, name);
  let err: string | undefined;
  if (router) {
    advanced = true;
    for (const r of items(router, "Routes")) {
      const d = record(r, "Destination");
      const to = { ns: text(d, "Namespace") || ns, name: text(d, "Service") || name };
      const subset = text(d, "ServiceSubset");
      err = subset ? resolve(to, subset, false) : split(to);
      if (err) return err;
    }
  }
  err = split(start);
  if (err) return err;
  const protocol = protocolOf(lookup, start);
  if (advanced && !L7_PROTOCOLS.has(protocol)) {
    return `discovery chain "${name}" uses a protocol "${protocol}" that does not permit advanced routing or splitting behavior`;
  }
  return undefined;
}
