/**
 * Cross-entry checks on a proposed config entry change, as Consul's state store makes them before it writes
 * (a speculative compile of every discovery chain the change can affect): a router or splitter needs an L7
 * protocol, every subset a chain reaches must exist in its service's resolver, and an ingress and a
 * terminating gateway may not share a name. Pure over a lookup, so it runs inside apply deterministically.
 */

type Entry = Readonly<Record<string, unknown>>;

export interface EntryLookup {
  get(kind: string, ns: string, name: string): Entry | undefined;
  /** Every entry of a kind in a namespace (`*`: all). */
  list(kind: string, ns: string): readonly Entry[];
  /** The router, splitter and resolver entries whose targets include the service (Consul's "link" index). */
  linkedTo(ns: string, name: string): readonly ServiceRef[];
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
    linkedTo: (n, nm) => base.linkedTo(n, nm),
    list: (k, n) => {
      const covers = k === kind && (n === ns || n === "*");
      if (!covers) return base.list(k, n);
      const others = base
        .list(k, n)
        .filter((e) => !(text(e, "Name") === name && text(e, "Namespace") === ns));
      return next ? [...others, next] : others;
    },
  };
  switch (kind) {
    case "ingress-gateway":
    case "terminating-gateway": {
      const other = kind === "ingress-gateway" ? "terminating-gateway" : "ingress-gateway";
      if (next && base.get(other, ns, name)) {
        return `cannot create a "${kind}" config entry with name "${name}", a "${other}" config entry with that name already exists`;
      }
      return kind === "ingress-gateway" && next ? ingressProtocolError(lookup, ns, next) : undefined;
    }
    case "proxy-defaults":
    case "service-defaults":
    case "service-router":
    case "service-splitter":
    case "service-resolver": {
      // Parts of the graph found sound are not walked again for the next chain.
      const sound: Sound = { targets: new Set(), splitters: new Set() };
      for (const chain of affectedChains(lookup, kind, ns, name)) {
        const err = compileCheck(lookup, chain.ns, chain.name, sound);
        if (err) return err;
      }
      if (kind === "service-defaults" || kind === "proxy-defaults") {
        // proxy-defaults sets the default protocol of every namespace.
        for (const gateway of lookup.list("ingress-gateway", kind === "proxy-defaults" ? "*" : ns)) {
          const err = ingressProtocolError(lookup, text(gateway, "Namespace") || ns, gateway);
          if (err) return err;
        }
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

export interface ServiceRef {
  readonly ns: string;
  readonly name: string;
}

/** The chains a change can break: every chain for proxy-defaults, else the service's own and those linking to it. */
function affectedChains(lookup: EntryLookup, kind: string, ns: string, name: string): ServiceRef[] {
  const out = new Map<string, ServiceRef>();
  const add = (ref: ServiceRef) => out.set(`${ref.ns}\u0000${ref.name}`, ref);
  if (kind !== "proxy-defaults") {
    add({ ns, name });
    for (const ref of lookup.linkedTo(ns, name)) add(ref);
    return [...out.values()];
  }
  for (const chainKind of CHAIN_KINDS) {
    for (const e of lookup.list(chainKind, "*"))
      add({ ns: text(e, "Namespace") || ns, name: text(e, "Name") });
  }
  return [...out.values()];
}

/** The other services a chain entry sends traffic to (what the link index holds). */
export function relatedServices(e: Entry): ServiceRef[] {
  const self = { ns: text(e, "Namespace"), name: text(e, "Name") };
  const out = targetsOf(text(e, "Kind"), e, self);
  return out.filter(
    (r, i) =>
      !(r.ns === self.ns && r.name === self.name) &&
      out.findIndex((o) => o.ns === r.ns && o.name === r.name) === i,
  );
}

function targetsOf(kind: string, e: Entry, self: ServiceRef): ServiceRef[] {
  const ref = (x: Entry | undefined): ServiceRef => ({
    ns: text(x, "Namespace") || self.ns,
    name: text(x, "Service") || self.name,
  });
  switch (kind) {
    case "service-router":
      return items(e, "Routes").map((r) => ref(record(r, "Destination")));
    case "service-splitter":
      return items(e, "Splits").map(ref);
    case "service-resolver": {
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
    default:
      return [];
  }
}

function protocolOf(lookup: EntryLookup, ref: ServiceRef): string {
  const own = text(lookup.get("service-defaults", ref.ns, ref.name), "Protocol").toLowerCase();
  if (own) return own;
  const global = record(lookup.get("proxy-defaults", GLOBAL_NS, "global"), "Config");
  const fallback = global?.protocol ?? global?.Protocol;
  return typeof fallback === "string" && fallback !== "" ? fallback.toLowerCase() : "tcp";
}

interface Target extends ServiceRef {
  readonly subset: string;
}

const targetId = (t: Target) => `${t.subset ? `${t.subset}.` : ""}${t.name}.${t.ns}`;

interface Sound {
  readonly targets: Set<string>;
  readonly splitters: Set<string>;
}

/** Walks one chain as the compiler would, reporting the first problem. */
function compileCheck(lookup: EntryLookup, ns: string, name: string, sound: Sound): string | undefined {
  let advanced = false;
  const resolved = sound.targets;

  // Redirects are followed transitively; coming back to a target is a loop.
  const resolve = (from: Target): string | undefined => {
    const order: string[] = [];
    let target = from;
    for (;;) {
      const id = targetId(target);
      if (order.includes(id)) return `detected circular resolver redirect: [${[...order, id].join(" -> ")}]`;
      order.push(id);
      if (resolved.has(id)) return undefined;
      const resolver = lookup.get("service-resolver", target.ns, target.name);
      const redirect = record(resolver, "Redirect");
      if (redirect) {
        const service = text(redirect, "Service") || target.name;
        const namespace = text(redirect, "Namespace") || target.ns;
        const moved = service !== target.name || namespace !== target.ns;
        const next = {
          ns: namespace,
          name: service,
          subset: text(redirect, "ServiceSubset") || (moved ? "" : target.subset),
        };
        if (targetId(next) !== id) {
          target = next;
          continue;
        }
      }
      const defaultSubset = text(resolver, "DefaultSubset");
      if (!target.subset && defaultSubset) {
        target = { ...target, subset: defaultSubset };
        continue;
      }
      if (target.subset && !Object.hasOwn(record(resolver, "Subsets") ?? {}, target.subset)) {
        return `service "${target.name}" does not have a subset named "${target.subset}"`;
      }
      const err = failoverError(lookup, target, resolver);
      if (err) return err;
      for (const seen of order) resolved.add(seen);
      return undefined;
    }
  };

  const splitting: string[] = [];
  const inProgress = new Set<string>();
  const split = (svc: ServiceRef): string | undefined => {
    const key = `splitter:${svc.name}.${svc.ns}`;
    if (inProgress.has(key)) return `detected circular reference: [${[...splitting, key].join(" -> ")}]`;
    const splitter = lookup.get("service-splitter", svc.ns, svc.name);
    if (!splitter) return resolve({ ...svc, subset: "" });
    advanced = true;
    if (sound.splitters.has(key)) return undefined;
    splitting.push(key);
    inProgress.add(key);
    for (const s of items(splitter, "Splits")) {
      const to = { ns: text(s, "Namespace") || svc.ns, name: text(s, "Service") || svc.name };
      const subset = text(s, "ServiceSubset");
      const same = to.ns === svc.ns && to.name === svc.name;
      const err = subset || same ? resolve({ ...to, subset }) : split(to);
      if (err) return err;
    }
    splitting.pop();
    inProgress.delete(key);
    sound.splitters.add(key);
    return undefined;
  };

  const router = lookup.get("service-router", ns, name);
  if (router) {
    advanced = true;
    for (const r of items(router, "Routes")) {
      const d = record(r, "Destination");
      const to = { ns: text(d, "Namespace") || ns, name: text(d, "Service") || name };
      const subset = text(d, "ServiceSubset");
      const err = subset ? resolve({ ...to, subset }) : split(to);
      if (err) return err;
    }
  }
  const err = split({ ns, name });
  if (err) return err;
  const protocol = protocolOf(lookup, { ns, name });
  if (advanced && !L7_PROTOCOLS.has(protocol)) {
    return `discovery chain "${name}" uses a protocol "${protocol}" that does not permit advanced routing or splitting behavior`;
  }
  return undefined;
}

/** Failover targets naming a subset need it to exist in that service's resolver. */
function failoverError(lookup: EntryLookup, target: Target, resolver: Entry | undefined): string | undefined {
  for (const f of Object.values(record(resolver, "Failover") ?? {})) {
    const failover = f as Entry;
    for (const t of [failover, ...items(failover, "Targets")]) {
      const subset = text(t, "ServiceSubset");
      if (!subset) continue;
      const to = { ns: text(t, "Namespace") || target.ns, name: text(t, "Service") || target.name };
      if (!Object.hasOwn(record(lookup.get("service-resolver", to.ns, to.name), "Subsets") ?? {}, subset))
        return `service "${to.name}" does not have a subset named "${subset}"`;
    }
  }
  return undefined;
}

/** Every service an ingress listener exposes must speak the listener's protocol. */
function ingressProtocolError(lookup: EntryLookup, ns: string, gateway: Entry): string | undefined {
  for (const listener of items(gateway, "Listeners")) {
    const protocol = text(listener, "Protocol") || "tcp";
    for (const service of items(listener, "Services")) {
      const name = text(service, "Name");
      if (name === "" || name === "*") continue;
      const own = protocolOf(lookup, { ns: text(service, "Namespace") || ns, name });
      if (own !== protocol)
        return `service "${name}" has protocol "${own}", which does not match defined listener protocol "${protocol}"`;
    }
  }
  return undefined;
}
