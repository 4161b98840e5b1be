import {
  type CatalogRegisterCommand,
  type CheckSpec,
  COMMAND_VERSION,
  type ServiceSpec,
  type StateStore,
} from "@cairn/fsm";

export const SERF_HEALTH_CHECK = "serfHealth";

export interface SelfIdentity {
  id: string;
  name: string;
  datacenter: string;
  address: string;
  serverPort: number;
  meta: Readonly<Record<string, string>>;
}

/** The `consul` service every server carries on its server (RPC) port. */
export function serverService(port: number): ServiceSpec {
  return { ID: "consul", Service: "consul", Port: port, Address: "" };
}

/** Addresses a node gets when nothing else says: its one address, LAN and WAN alike. */
export function defaultTaggedAddresses(address: string): Record<string, string> {
  return { lan: address, lan_ipv4: address, wan: address, wan_ipv4: address };
}

/** The gossip health check: passing while the member is alive, critical once it failed. */
export function serfHealthCheck(node: string, status: "passing" | "critical"): CheckSpec {
  return {
    Node: node,
    CheckID: SERF_HEALTH_CHECK,
    Name: "Serf Health Status",
    Status: status,
    Output: status === "passing" ? "Agent alive and reachable" : "Agent not live or unreachable",
  };
}

/**
 * Until gossip lets the leader reconcile members into the catalog, each server registers itself: its node,
 * the `consul` service on its server port (Consul's servers appear under that name), and a passing serfHealth
 * check — the check sessions depend on by default.
 */
export function selfRegistration(self: SelfIdentity, now: number): CatalogRegisterCommand {
  return {
    v: COMMAND_VERSION,
    type: "catalog.register",
    registration: {
      ID: self.id,
      Node: self.name,
      Address: self.address,
      Datacenter: self.datacenter,
      TaggedAddresses: defaultTaggedAddresses(self.address),
      NodeMeta: { ...self.meta },
      Service: serverService(self.serverPort),
      Checks: [serfHealthCheck(self.name, "passing")],
    },
    now,
  };
}

/** Whether the catalog already holds this server as selfRegistration would write it. */
export function isRegistered(store: StateStore, self: SelfIdentity): boolean {
  const view = store.view();
  const node = view.node(self.name).value;
  if (!node || node.node.ID !== self.id || node.node.Address !== self.address) return false;
  if (!node.services.some((s) => s.ID === "consul" && s.Port === self.serverPort)) return false;
  return view
    .checksForNode(self.name, "*")
    .value.some((c) => c.CheckID === SERF_HEALTH_CHECK && c.Status === "passing");
}
