import type { CatalogNode, NodeService, RegisterSpec } from "@cairn/fsm";

/** The node entry and the services on it (in the registration's namespace) as stored before the write. */
export interface StoredNode {
  readonly node: CatalogNode;
  readonly services: readonly NodeService[];
}

type Resource = { readonly type: "node" | "service"; readonly name: string };

/**
 * The write privileges a catalog registration needs, as Consul vets it: node:write only when the node entry
 * itself would change (so an agent may re-post unchanged node fields with a service), service:write for the
 * service and for any service it replaces by ID, node:write for node-level checks, and service:write for a
 * check on another service already on the node.
 */
export function registerPrivileges(spec: RegisterSpec, stored: StoredNode | undefined): Resource[] {
  const needs: Resource[] = [];
  if (changesNode(spec, stored?.node)) needs.push({ type: "node", name: spec.Node });
  const service = spec.Service;
  const serviceID = service ? service.ID || service.Service : undefined;
  if (service) {
    needs.push({ type: "service", name: service.Service });
    const replaced = stored?.services.find((s) => s.ID === serviceID);
    if (replaced && replaced.Service !== service.Service)
      needs.push({ type: "service", name: replaced.Service });
  }
  for (const check of spec.Checks ?? []) {
    if (check.Node && check.Node !== spec.Node) needs.push({ type: "node", name: check.Node });
    if (!check.ServiceID) {
      needs.push({ type: "node", name: spec.Node });
    } else if (check.ServiceID !== serviceID) {
      // An unknown service is left to the state machine, which refuses the whole registration.
      const other = stored?.services.find((s) => s.ID === check.ServiceID);
      if (other) needs.push({ type: "service", name: other.Service });
    }
  }
  return needs;
}

function changesNode(spec: RegisterSpec, node: CatalogNode | undefined): boolean {
  if (!node) return true;
  if (spec.SkipNodeUpdate) return false;
  return (
    (spec.ID ?? "") !== node.ID ||
    spec.Node.toLowerCase() !== node.Node.toLowerCase() ||
    spec.Address !== node.Address ||
    (spec.Datacenter ?? node.Datacenter) !== node.Datacenter ||
    !sameMap(spec.TaggedAddresses, node.TaggedAddresses) ||
    !sameMap(spec.NodeMeta, node.Meta)
  );
}

/** A missing map and an empty one store the same way. */
function sameMap(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>>,
): boolean {
  const keys = Object.keys(a ?? {});
  return keys.length === Object.keys(b).length && keys.every((k) => a?.[k] === b[k]);
}
