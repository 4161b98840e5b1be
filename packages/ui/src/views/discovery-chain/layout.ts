/**
 * Lays a compiled discovery chain (`/v1/discovery-chain/:service`) out as columns of boxes: routers, then
 * splitters, then resolvers, then targets, with an edge for each route, split, primary target and failover.
 * Rows follow a depth-first walk from the start node, so most edges run straight across.
 */

export interface ChainRoute {
  readonly Definition?: { readonly Match?: unknown } | null;
  readonly NextNode: string;
}
export interface ChainNode {
  readonly Type: string;
  readonly Name: string;
  readonly Routes?: readonly ChainRoute[] | null;
  readonly Splits?: readonly { readonly Weight: number; readonly NextNode: string }[] | null;
  readonly Resolver?: {
    readonly Target: string;
    readonly Default?: boolean;
    readonly ConnectTimeout?: string;
    readonly Failover?: { readonly Targets?: readonly string[] | null } | null;
  } | null;
}
export interface ChainTarget {
  readonly ID: string;
  readonly Service: string;
  readonly ServiceSubset?: string;
  readonly Datacenter: string;
}
export interface CompiledChain {
  readonly ServiceName: string;
  readonly Protocol: string;
  readonly StartNode: string;
  readonly Nodes?: Readonly<Record<string, ChainNode>> | null;
  readonly Targets?: Readonly<Record<string, ChainTarget>> | null;
}

export type BoxKind = "router" | "splitter" | "resolver" | "target";
export type EdgeKind = "route" | "split" | "target" | "failover";

export interface Box {
  readonly id: string;
  readonly kind: BoxKind;
  readonly label: string;
  readonly detail: string;
  readonly x: number;
  readonly y: number;
}
export interface Edge {
  readonly from: string;
  readonly to: string;
  readonly kind: EdgeKind;
  readonly label: string;
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
}
export interface ChainLayout {
  readonly boxes: readonly Box[];
  readonly edges: readonly Edge[];
  readonly width: number;
  readonly height: number;
}

export const BOX_WIDTH = 200;
export const BOX_HEIGHT = 48;
export const GAP_X = 70;
const GAP_Y = 24;
const COLUMN_ORDER: readonly BoxKind[] = ["router", "splitter", "resolver", "target"];

const TARGET_PREFIX = "target:";

function boxKind(type: string): BoxKind {
  return type === "router" || type === "splitter" ? type : "resolver";
}

/** A route's match in a few words: the HTTP path test, methods and header tests, else `default`. */
export function routeLabel(route: ChainRoute): string {
  const match = route.Definition?.Match as { HTTP?: Record<string, unknown> } | undefined | null;
  const http = match?.HTTP;
  if (!http) return "default";
  const parts: string[] = [];
  if (typeof http.PathExact === "string" && http.PathExact) parts.push(`path = ${http.PathExact}`);
  if (typeof http.PathPrefix === "string" && http.PathPrefix) parts.push(`path ${http.PathPrefix}*`);
  if (typeof http.PathRegex === "string" && http.PathRegex) parts.push(`path ~ ${http.PathRegex}`);
  if (Array.isArray(http.Methods) && http.Methods.length > 0) parts.push(http.Methods.join("|"));
  if (Array.isArray(http.Header) && http.Header.length > 0)
    parts.push(`${http.Header.length} header test(s)`);
  if (Array.isArray(http.QueryParam) && http.QueryParam.length > 0)
    parts.push(`${http.QueryParam.length} query test(s)`);
  return parts.length > 0 ? parts.join(", ") : "default";
}

interface RawEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: EdgeKind;
  readonly label: string;
}

function outgoing(id: string, node: ChainNode | undefined): RawEdge[] {
  if (!node) return [];
  if (node.Type === "router") {
    return (node.Routes ?? []).map((r) => ({
      from: id,
      to: r.NextNode,
      kind: "route" as const,
      label: routeLabel(r),
    }));
  }
  if (node.Type === "splitter") {
    return (node.Splits ?? []).map((s) => ({
      from: id,
      to: s.NextNode,
      kind: "split" as const,
      label: `${s.Weight}%`,
    }));
  }
  const resolver = node.Resolver;
  if (!resolver) return [];
  const edges: RawEdge[] = [{ from: id, to: TARGET_PREFIX + resolver.Target, kind: "target", label: "" }];
  for (const t of resolver.Failover?.Targets ?? []) {
    edges.push({ from: id, to: TARGET_PREFIX + t, kind: "failover", label: "failover" });
  }
  return edges;
}

/** The boxes and edges of a chain, positioned; nodes unreachable from the start node are still drawn. */
export function layoutChain(chain: CompiledChain): ChainLayout {
  const nodes = chain.Nodes ?? {};
  const targets = chain.Targets ?? {};
  const order: string[] = [];
  const seen = new Set<string>();
  const edges: RawEdge[] = [];
  const visit = (id: string): void => {
    if (seen.has(id)) return;
    seen.add(id);
    order.push(id);
    if (id.startsWith(TARGET_PREFIX)) return;
    const out = outgoing(id, nodes[id]);
    edges.push(...out);
    for (const e of out) visit(e.to);
  };
  visit(chain.StartNode);
  for (const id of Object.keys(nodes).sort()) visit(id);
  for (const id of Object.keys(targets).sort()) visit(TARGET_PREFIX + id);

  const describe = (id: string): { kind: BoxKind; label: string; detail: string } | undefined => {
    if (id.startsWith(TARGET_PREFIX)) {
      const tid = id.slice(TARGET_PREFIX.length);
      const t = targets[tid];
      if (!t) return { kind: "target", label: tid, detail: "unknown target" };
      const subset = t.ServiceSubset ? ` (${t.ServiceSubset})` : "";
      return { kind: "target", label: `${t.Service}${subset}`, detail: `datacenter ${t.Datacenter}` };
    }
    const node = nodes[id];
    if (!node) return undefined;
    const kind = boxKind(node.Type);
    const detail =
      kind === "resolver"
        ? `resolver${node.Resolver?.Default ? " (default)" : ""}${node.Resolver?.ConnectTimeout ? `, timeout ${node.Resolver.ConnectTimeout}` : ""}`
        : kind;
    return { kind, label: node.Name, detail };
  };

  const described = new Map<string, { id: string; kind: BoxKind; label: string; detail: string }>();
  for (const id of order) {
    const d = describe(id);
    if (d) described.set(id, { id, ...d });
  }
  const columnOf = new Map<BoxKind, number>();
  for (const kind of COLUMN_ORDER) {
    if ([...described.values()].some((d) => d.kind === kind)) columnOf.set(kind, columnOf.size);
  }

  // Rows like a tidy tree: each leaf gets the next row, and a box sits on its first child's row, so the
  // edge to that child runs straight across, past the columns it skips (a route straight to a resolver
  // passes no splitter). A row already taken in the box's column (a shared child) sends it to a new row.
  const rowOf = new Map<string, number>();
  const taken = new Set<string>();
  let rows = 0;
  const children = new Map<string, string[]>();
  for (const e of edges) {
    if (!described.has(e.to)) continue;
    const list = children.get(e.from) ?? [];
    if (!list.includes(e.to)) list.push(e.to);
    children.set(e.from, list);
  }
  const place = (id: string): void => {
    if (rowOf.has(id)) return;
    const d = described.get(id);
    if (!d) return;
    rowOf.set(id, -1);
    const kids = children.get(id) ?? [];
    for (const k of kids) place(k);
    const first = kids.map((k) => rowOf.get(k) ?? -1).find((r) => r >= 0);
    let row = first ?? rows;
    if (taken.has(`${d.kind}:${row}`)) row = rows;
    rows = Math.max(rows, row + 1);
    rowOf.set(id, row);
    taken.add(`${d.kind}:${row}`);
  };
  for (const id of order) place(id);

  const boxes: Box[] = [];
  const at = new Map<string, Box>();
  for (const d of described.values()) {
    const box: Box = {
      ...d,
      x: (columnOf.get(d.kind) ?? 0) * (BOX_WIDTH + GAP_X),
      y: (rowOf.get(d.id) ?? 0) * (BOX_HEIGHT + GAP_Y),
    };
    boxes.push(box);
    at.set(d.id, box);
  }
  const colIndex = columnOf.size;
  const placed: Edge[] = [];
  for (const e of edges) {
    const a = at.get(e.from);
    const b = at.get(e.to);
    if (!a || !b) continue;
    placed.push({
      ...e,
      x1: a.x + BOX_WIDTH,
      y1: a.y + BOX_HEIGHT / 2,
      x2: b.x,
      y2: b.y + BOX_HEIGHT / 2,
    });
  }
  return {
    boxes,
    edges: placed,
    width: Math.max(0, colIndex * (BOX_WIDTH + GAP_X) - GAP_X),
    height: Math.max(0, rows * (BOX_HEIGHT + GAP_Y) - GAP_Y),
  };
}
