import { type CatalogRegisterCommand, COMMAND_VERSION, type StateStore } from "@cairn/fsm";

export const SERF_HEALTH_CHECK = "serfHealth";

export interface SelfIdentity {
  id: string;
  name: string;
  datacenter: string;
  address: string;
  serverPort: number;
  meta: Readonly<Record<string, string>>;
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
      TaggedAddresses: {
        lan: self.address,
        lan_ipv4: self.address,
        wan: self.address,
        wan_ipv4: self.address,
      },
      NodeMeta: { ...self.meta },
      Service: { ID: "consul", Service: "consul", Port: self.serverPort, Address: "" },
      Checks: [
        {
          Node: self.name,
          CheckID: SERF_HEALTH_CHECK,
          Name: "Serf Health Status",
          Status: "passing",
          Output: "Agent alive and reachable",
        },
      ],
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
