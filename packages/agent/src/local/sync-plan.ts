import type { LocalCheck, LocalService } from "@cairn/api";
import type { CatalogNode, CheckSpec, HealthCheck, NodeService, RegisterSpec, ServiceSpec } from "@cairn/fsm";

/** The servers own these on every node (the `consul` service, the gossip health check): never synced. */
export const CONSUL_SERVICE_ID = "consul";
export const SERF_CHECK_ID = "serfHealth";

/** This agent's node as it registers it in the catalog. */
export interface NodeIdentity {
  readonly id: string;
  readonly name: string;
  readonly address: string;
  readonly datacenter: string;
  readonly taggedAddresses: Readonly<Record<string, string>>;
  readonly meta: Readonly<Record<string, string>>;
}

export interface LocalSnapshot {
  readonly node: NodeIdentity;
  readonly services: readonly LocalService[];
  readonly checks: readonly LocalCheck[];
  /** Services changed locally since they were last synced, with a change counter each. */
  readonly changed?: ReadonlyMap<string, number>;
  /** The ACL token each write goes with; none (all empty) when absent. */
  readonly tokens?: SyncTokens;
}

/**
 * The tokens anti-entropy writes with, as Consul's local state picks them: a service and a check go with
 * the token they were registered with, else the agent's default token (the caller resolves that fallback);
 * node info and removals go with the agent token, else the default one (node:write on the node covers
 * removing anything on it, and a removed entry's own token may be gone).
 */
export interface SyncTokens {
  /** By service ID. */
  readonly services: ReadonlyMap<string, string>;
  /** By check ID. */
  readonly checks: ReadonlyMap<string, string>;
  readonly agent: string;
}

/** What the catalog holds for this node (from the local replica of the state store). */
export interface CatalogSnapshot {
  readonly node: CatalogNode | undefined;
  readonly services: readonly NodeService[];
  readonly checks: readonly HealthCheck[];
}

/** One catalog write and the ACL token it goes with. */
export type SyncOp = (
  | { readonly kind: "register"; readonly registration: RegisterSpec }
  | { readonly kind: "deregister-service"; readonly serviceID: string; readonly ns: string }
  | { readonly kind: "deregister-check"; readonly checkID: string; readonly ns: string }
) & { readonly token: string };

const NO_TOKENS: SyncTokens = { services: new Map(), checks: new Map(), agent: "" };

/**
 * Anti-entropy's decision, pure: the catalog writes that make this node's catalog entries equal to the
 * agent's local state. The node itself comes first when its address or metadata differ, written with the
 * agent token so that the service writes after it change nothing of the node (a service token need not
 * hold node:write). Services and checks the agent does not know are removed (deregistering a service takes
 * its checks along), then missing or different ones are written: a service with those of its checks that
 * share its token, each other check with its own token. Removals precede writes so that a re-registration
 * never collides with a stale entry.
 */
export function planSync(local: LocalSnapshot, catalog: CatalogSnapshot): SyncOp[] {
  const ops: SyncOp[] = [];
  const tokens = local.tokens ?? NO_TOKENS;
  const base = nodeSpec(local.node);
  // Past the node's own write, the others leave the node entry alone (their tokens need no node:write).
  const entry: RegisterSpec = catalog.node === undefined ? base : { ...base, SkipNodeUpdate: true };
  const localServices = new Map(local.services.map((s) => [key(s.Namespace, s.ID), s]));
  const localChecks = new Map(local.checks.map((c) => [key(c.Namespace, c.CheckID), c]));
  const catalogServices = new Map(catalog.services.map((s) => [key(s.Namespace, s.ID), s]));
  const catalogChecks = new Map(catalog.checks.map((c) => [key(c.Namespace, c.CheckID), c]));

  if (catalog.node === undefined || !sameNode(local.node, catalog.node)) {
    ops.push({ kind: "register", registration: base, token: tokens.agent });
  }
  const removedServices = new Set<string>();
  for (const [k, s] of catalogServices) {
    if (s.ID === CONSUL_SERVICE_ID || localServices.has(k)) continue;
    ops.push({ kind: "deregister-service", serviceID: s.ID, ns: s.Namespace, token: tokens.agent });
    removedServices.add(k);
  }
  for (const [k, c] of catalogChecks) {
    if (c.CheckID === SERF_CHECK_ID || localChecks.has(k)) continue;
    if (c.ServiceID && removedServices.has(key(c.Namespace, c.ServiceID))) continue;
    ops.push({ kind: "deregister-check", checkID: c.CheckID, ns: c.Namespace, token: tokens.agent });
  }

  const checkToken = (c: LocalCheck) => tokens.checks.get(c.CheckID) ?? "";
  /** Checks written whatever the catalog holds: those of a service written afresh. */
  const forced = new Set<string>();
  for (const [k, s] of localServices) {
    const current = catalogServices.get(k);
    if (current !== undefined && sameService(s, current)) continue;
    const token = tokens.services.get(s.ID) ?? "";
    // A service written afresh carries its checks along, but only those registered with its token: a check
    // must not gain the service token's privileges.
    const checks = local.checks.filter((c) => c.ServiceID === s.ID && c.Namespace === s.Namespace);
    const riding = checks.filter((c) => checkToken(c) === token);
    for (const c of checks) {
      const ck = key(c.Namespace, c.CheckID);
      if (riding.includes(c)) localChecks.delete(ck);
      else forced.add(ck);
    }
    ops.push({
      kind: "register",
      registration: {
        ...entry,
        Service: serviceSpec(s),
        ...(riding.length > 0 ? { Checks: riding.map(checkSpec) } : {}),
      },
      token,
    });
  }
  for (const [k, c] of localChecks) {
    const current = catalogChecks.get(k);
    if (!forced.has(k) && current !== undefined && sameCheck(c, current)) continue;
    ops.push({ kind: "register", registration: { ...entry, Check: checkSpec(c) }, token: checkToken(c) });
  }
  return ops;
}

function key(ns: string, id: string): string {
  return `${ns}\u0000${id}`;
}

function nodeSpec(n: NodeIdentity): RegisterSpec {
  return {
    ID: n.id,
    Node: n.name,
    Address: n.address,
    Datacenter: n.datacenter,
    TaggedAddresses: { ...n.taggedAddresses },
    NodeMeta: { ...n.meta },
  };
}

function serviceSpec(s: LocalService): ServiceSpec {
  return {
    ID: s.ID,
    Service: s.Service,
    Tags: [...s.Tags],
    Address: s.Address,
    TaggedAddresses: s.TaggedAddresses,
    Meta: s.Meta,
    Port: s.Port,
    Kind: s.Kind,
    Proxy: s.Proxy,
    Connect: s.Connect,
    EnableTagOverride: s.EnableTagOverride,
    Weights: s.Weights,
    Namespace: s.Namespace,
  };
}

function checkSpec(c: LocalCheck): CheckSpec {
  return {
    CheckID: c.CheckID,
    Name: c.Name,
    Status: c.Status,
    Notes: c.Notes,
    Output: c.Output,
    ServiceID: c.ServiceID,
    Type: c.Type,
    Definition: c.Definition,
    Namespace: c.Namespace,
  };
}

function sameNode(n: NodeIdentity, c: CatalogNode): boolean {
  return (
    c.ID === n.id &&
    c.Address === n.address &&
    sameJson(c.TaggedAddresses, n.taggedAddresses) &&
    sameJson(c.Meta, n.meta)
  );
}

function sameService(s: LocalService, c: NodeService): boolean {
  return (
    s.Service === c.Service &&
    s.Address === c.Address &&
    s.Port === c.Port &&
    s.Kind === c.Kind &&
    s.EnableTagOverride === c.EnableTagOverride &&
    sameJson(s.Tags, c.Tags) &&
    sameJson(s.Meta, c.Meta) &&
    sameJson(s.TaggedAddresses, c.TaggedAddresses) &&
    sameJson(s.Weights, c.Weights) &&
    sameJson(asStored(s.Proxy), asStored(c.Proxy)) &&
    sameJson(asStored(s.Connect), asStored(c.Connect))
  );
}

function sameCheck(l: LocalCheck, c: HealthCheck): boolean {
  return (
    l.Name === c.Name &&
    l.Status === c.Status &&
    l.Notes === c.Notes &&
    l.Output === c.Output &&
    l.ServiceID === c.ServiceID &&
    l.Type === c.Type &&
    sameJson(l.Definition, c.Definition)
  );
}

/**
 * Proxy and Connect as the catalog endpoint stores them: a member set to null is left out (and no object
 * at all is an empty one). Definitions are kept that way since they are parsed; a service persisted by an
 * earlier release may still hold `"Config": null`, and must compare equal to what its sync wrote.
 */
function asStored(obj: Readonly<Record<string, unknown>> | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj ?? {})) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

/** Structural equality of JSON-like values, object keys in any order. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k)) return false;
    if (!sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}
