// Health summaries from check lists, in Consul's order of severity.

export type Status = "passing" | "warning" | "critical";

export interface Check {
  Node: string;
  CheckID: string;
  Name: string;
  Status: string;
  Notes?: string;
  Output?: string;
  ServiceID: string;
  ServiceName: string;
  Type?: string;
}

export interface Counts {
  passing: number;
  warning: number;
  critical: number;
}

const RANK: Record<Status, number> = { passing: 0, warning: 1, critical: 2 };

/** A status as the UI groups it: anything unknown (maintenance uses critical) counts as critical. */
export function normalize(status: string): Status {
  return status === "passing" || status === "warning" ? status : "critical";
}

export function worst(statuses: Iterable<string>): Status {
  let result: Status = "passing";
  for (const s of statuses) {
    const n = normalize(s);
    if (RANK[n] > RANK[result]) result = n;
  }
  return result;
}

export function count(checks: Iterable<{ Status: string }>): Counts {
  const counts: Counts = { passing: 0, warning: 0, critical: 0 };
  for (const c of checks) counts[normalize(c.Status)]++;
  return counts;
}

/** The worst of a non-empty count, "passing" when nothing is checked. */
export function worstOf(counts: Counts): Status {
  if (counts.critical > 0) return "critical";
  if (counts.warning > 0) return "warning";
  return "passing";
}

/**
 * Check counts per service from every check in the datacenter (`/v1/health/state/any`): a service's own
 * checks, plus the node checks (serfHealth, maintenance) of each node that runs one of its checked instances.
 */
export function countsByService(checks: readonly Check[]): Map<string, Counts> {
  const nodeChecks = new Map<string, Check[]>();
  for (const c of checks) {
    if (c.ServiceID === "") {
      const list = nodeChecks.get(c.Node);
      if (list) list.push(c);
      else nodeChecks.set(c.Node, [c]);
    }
  }
  const result = new Map<string, Counts>();
  const nodesOf = new Map<string, Set<string>>();
  for (const c of checks) {
    if (c.ServiceID === "") continue;
    let counts = result.get(c.ServiceName);
    if (!counts) {
      counts = { passing: 0, warning: 0, critical: 0 };
      result.set(c.ServiceName, counts);
      nodesOf.set(c.ServiceName, new Set());
    }
    counts[normalize(c.Status)]++;
    nodesOf.get(c.ServiceName)!.add(c.Node);
  }
  for (const [service, nodes] of nodesOf) {
    const counts = result.get(service)!;
    for (const node of nodes) for (const c of nodeChecks.get(node) ?? []) counts[normalize(c.Status)]++;
  }
  return result;
}

/** The worst status of each node, over its node and service checks. */
export function statusByNode(checks: readonly Check[]): Map<string, Status> {
  const result = new Map<string, Status>();
  for (const c of checks) {
    const s = normalize(c.Status);
    const before = result.get(c.Node);
    if (before === undefined || RANK[s] > RANK[before]) result.set(c.Node, s);
  }
  return result;
}
