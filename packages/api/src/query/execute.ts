import { type Coordinate, type PreparedQueryDefinition, selectQueryNodes } from "@cairn/discovery";
import type { ServiceHealth, StateView } from "@cairn/fsm";
import { writeJson } from "@cairn/json";
import { connectHealth } from "../catalog/reads.js";
import { encodeCheckServiceNode } from "../catalog/shapes.js";

export interface ExecuteRequest {
  /** `?near`, with `_agent` still unresolved; "" when absent (the query's own Near applies). */
  readonly near: string;
  /** The source IP for `_ip`. */
  readonly sourceIp: string;
  readonly limit: number;
  /** `?connect`: only Connect-capable instances, whatever the query says. */
  readonly connect: boolean;
  readonly namespace: string;
  readonly agentNode: string;
  readonly datacenter: string;
  readonly random: () => number;
  /** ACL: whether the executing token may see this instance. */
  readonly visible: (instance: ServiceHealth) => boolean;
}

/** The node to sort near: `?near` first, else the query's Near; `_agent` and `_ip` resolved ("" when unknown). */
function nearNode(view: StateView, wanted: string, req: ExecuteRequest): string {
  if (wanted === "_agent") return req.agentNode;
  if (wanted !== "_ip") return wanted;
  if (req.sourceIp === "") return "";
  return view.nodes().value.find((n) => n.Address === req.sourceIp)?.Node ?? "";
}

export interface ExecuteResult {
  /** Consul's execution result, encoded. */
  readonly body: string;
  /** The index of the read. */
  readonly index: number;
  /** How many nodes it holds: none sends the query on to other datacenters. */
  readonly count: number;
}

/** Runs a resolved query on a view, here only: failover to other datacenters is the caller's. */
export function executeQuery(
  view: StateView,
  query: PreparedQueryDefinition,
  req: ExecuteRequest,
): ExecuteResult {
  const service = query.Service;
  const scope = { ns: req.namespace };
  const read =
    service.Connect || req.connect
      ? connectHealth(view, service.Service, scope)
      : view.serviceHealth(service.Service, scope);
  const candidates = read.value.filter(req.visible);
  const near = nearNode(view, req.near || service.Near, req);
  let origin: Coordinate | undefined;
  const coordinates = new Map<string, Coordinate>();
  if (near !== "") {
    const own = view.coordinates(near).value;
    const mine = own.find((c) => c.Segment === "") ?? own[0];
    origin = mine?.Coord;
    for (const c of view.coordinates().value)
      if (c.Segment === mine?.Segment) coordinates.set(c.Node, c.Coord);
  }
  const nodes = selectQueryNodes(service, candidates, {
    random: req.random,
    origin,
    originNode: near,
    coordinateOf: (c) => coordinates.get(c.node.Node),
    limit: req.limit,
  });
  const encoded = nodes.map((n) => encodeCheckServiceNode(n.node, n.service, n.checks)).join(",");
  const body =
    `{"Service":${writeJson(service.Service)},"Nodes":[${encoded}],"DNS":${writeJson(query.DNS)},` +
    `"Datacenter":${writeJson(req.datacenter)},"Failovers":0}`;
  return { body, index: read.index, count: nodes.length };
}
