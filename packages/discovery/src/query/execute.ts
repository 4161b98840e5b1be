import { type Coordinate, sortByDistance } from "../coordinate.js";
import type { ServiceQuery } from "./types.js";

/**
 * What a prepared query does with the local catalog's instances of its service (Consul's execute and the
 * sorting that follows it), as a pure function: health filtering, node/service metadata, tags with `!`
 * exclusions, then a shuffle, a `near` sort when there is an origin coordinate, and the limit.
 */

export interface QueryCheck {
  readonly CheckID: string;
  readonly Status: string;
}

/** One instance with its node and every check that applies to it (node-level and its own). */
export interface QueryCandidate {
  readonly node: { readonly Node: string; readonly Meta: Readonly<Record<string, string>> };
  readonly service: { readonly Tags: readonly string[]; readonly Meta: Readonly<Record<string, string>> };
  readonly checks: readonly QueryCheck[];
}

export interface QueryOrdering<T> {
  /** Uniform in [0, 1): the shuffle's randomness, injected so runs can be replayed. */
  readonly random: () => number;
  /** The coordinate of the node to sort near; undefined (unknown node, no `near`) leaves the shuffle. */
  readonly origin?: Coordinate | undefined;
  /** The `near` node itself, moved to the front when it is among the first ten after sorting. */
  readonly originNode?: string | undefined;
  readonly coordinateOf: (candidate: T) => Coordinate | undefined;
  /** 0 for all. */
  readonly limit: number;
}

/** Critical excludes; with OnlyPassing, anything but passing excludes; ignored check IDs never count. */
export function healthy(candidate: QueryCandidate, onlyPassing: boolean, ignore: readonly string[]): boolean {
  for (const check of candidate.checks) {
    if (ignore.includes(check.CheckID)) continue;
    if (check.Status === "critical" || (onlyPassing && check.Status !== "passing")) return false;
  }
  return true;
}

export function metaSatisfies(
  meta: Readonly<Record<string, string>>,
  filters: Readonly<Record<string, string>> | null,
): boolean {
  if (filters === null) return true;
  for (const [key, value] of Object.entries(filters)) {
    if (!Object.hasOwn(meta, key) || meta[key] !== value) return false;
  }
  return true;
}

/** Every plain tag present and no `!`-prefixed tag present, compared case-insensitively as Consul does. */
export function tagsSatisfy(tags: readonly string[], wanted: readonly string[] | null): boolean {
  if (wanted === null || wanted.length === 0) return true;
  const have = new Set(tags.map((t) => t.toLowerCase()));
  for (const raw of wanted) {
    const tag = raw.toLowerCase();
    if (tag.startsWith("!") ? have.has(tag.slice(1)) : !have.has(tag)) return false;
  }
  return true;
}

export function matchesQuery(candidate: QueryCandidate, service: ServiceQuery): boolean {
  return (
    healthy(candidate, service.OnlyPassing, service.IgnoreCheckIDs ?? []) &&
    metaSatisfies(candidate.node.Meta, service.NodeMeta) &&
    metaSatisfies(candidate.service.Meta, service.ServiceMeta) &&
    tagsSatisfy(candidate.service.Tags, service.Tags)
  );
}

/** Fisher-Yates over a copy. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The candidates a query returns, in the order it returns them. */
export function selectQueryNodes<T extends QueryCandidate>(
  service: ServiceQuery,
  candidates: readonly T[],
  order: QueryOrdering<T>,
): T[] {
  let out = shuffled(
    candidates.filter((c) => matchesQuery(c, service)),
    order.random,
  );
  if (order.origin !== undefined) {
    out = sortByDistance(out, order.origin, order.coordinateOf);
    const at = out.slice(0, 10).findIndex((c) => c.node.Node === order.originNode);
    if (at > 0) [out[0], out[at]] = [out[at]!, out[0]!];
  }
  return order.limit > 0 ? out.slice(0, order.limit) : out;
}
