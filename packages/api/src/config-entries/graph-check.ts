import { ChainCompileError, type ChainEntries, type ConfigEntryFields, compileChain } from "@cairn/discovery";
import type { StateView } from "@cairn/fsm";
import { badRequest } from "../http/errors.js";
import { chainEntriesOf } from "../query/chain-entries.js";

/** A proposed change: `entry` set for (kind, name, ns), or removed when `entry` is undefined. */
export interface ProposedChange {
  readonly kind: string;
  readonly name: string;
  readonly ns: string;
  readonly entry: ConfigEntryFields | undefined;
}

export interface ChainSetting {
  readonly datacenter: string;
  readonly trustDomain: string;
}

const CHAIN_KINDS = ["service-resolver", "service-splitter", "service-router", "service-defaults"] as const;
/** Kinds whose entries point at other services (redirects, failovers, split legs, route destinations). */
const LINKING_KINDS = ["service-resolver", "service-splitter", "service-router"] as const;

/**
 * Refuses a change that would leave a discovery chain uncompilable, as Consul's
 * validateProposedConfigEntryInGraph does: the chains it can affect are compiled against the view with the
 * change applied, and the first compiler error becomes a 400.
 */
export function validateInGraph(view: StateView, change: ProposedChange, setting: ChainSetting): void {
  if (change.kind !== "proxy-defaults" && !(CHAIN_KINDS as readonly string[]).includes(change.kind)) return;
  const entries = overlay(chainEntriesOf(view).entries, change);
  for (const [service, ns] of affectedChains(view, change)) {
    try {
      compileChain({ serviceName: service, namespace: ns, ...setting, entries, overrides: {} });
    } catch (err) {
      if (err instanceof ChainCompileError) throw badRequest(err.message);
      throw err;
    }
  }
}

function overlay(base: ChainEntries, change: ProposedChange): ChainEntries {
  const at =
    (kind: string, lookup: (name: string, ns: string) => ConfigEntryFields | undefined) =>
    (name: string, ns: string) =>
      kind === change.kind && name === change.name && ns === change.ns ? change.entry : lookup(name, ns);
  return {
    resolver: at("service-resolver", base.resolver),
    splitter: at("service-splitter", base.splitter),
    router: at("service-router", base.router),
    serviceDefaults: at("service-defaults", base.serviceDefaults),
    proxyDefaults: () => (change.kind === "proxy-defaults" ? change.entry : base.proxyDefaults()),
  };
}

/**
 * The chains a change can reach: for proxy-defaults every service with a chain entry; otherwise the entry's
 * service and every service whose linking entries lead to it, directly or through others (same namespace).
 */
function affectedChains(view: StateView, change: ProposedChange): Array<[string, string]> {
  if (change.kind === "proxy-defaults") {
    const out = new Map<string, [string, string]>();
    for (const kind of CHAIN_KINDS)
      for (const e of view.configEntries(kind, "*").value)
        out.set(`${e.Namespace}/${e.Name}`, [e.Name, e.Namespace]);
    return [...out.values()];
  }
  const pointedFrom = new Map<string, Set<string>>();
  const link = (from: string, to: string) => {
    const set = pointedFrom.get(to) ?? new Set<string>();
    pointedFrom.set(to, set.add(from));
  };
  for (const kind of LINKING_KINDS) {
    for (const e of view.configEntries(kind, change.ns).value) {
      const fields = kind === change.kind && e.Name === change.name ? change.entry : e;
      if (fields !== undefined) for (const to of servicesNamed(fields)) link(e.Name, to);
    }
  }
  if (change.entry !== undefined && (LINKING_KINDS as readonly string[]).includes(change.kind))
    for (const to of servicesNamed(change.entry)) link(change.name, to);
  const seen = new Set<string>([change.name]);
  const queue = [change.name];
  for (let s = queue.pop(); s !== undefined; s = queue.pop())
    for (const from of pointedFrom.get(s) ?? [])
      if (!seen.has(from)) {
        seen.add(from);
        queue.push(from);
      }
  return [...seen].map((s) => [s, change.ns]);
}

/** Every `Service` string anywhere in an entry: the services it may send traffic to. */
function servicesNamed(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const v of value) servicesNamed(v, out);
  else if (typeof value === "object" && value !== null)
    for (const [k, v] of Object.entries(value)) {
      if (k === "Service" && typeof v === "string" && v !== "") out.add(v);
      else servicesNamed(v, out);
    }
  return out;
}
