import { type MembershipBackend, MembershipRequestError } from "@cairn/api";
import type { AgentMembership } from "./agent-membership.js";

/**
 * The members endpoints over the agent's pools. `shutdown` runs after a graceful leave, once the route has
 * its answer (Consul answers /v1/agent/leave after leaving, then the agent exits).
 */
export function membershipBackend(membership: AgentMembership, shutdown: () => void): MembershipBackend {
  return {
    members: (opts) => membership.members(opts),
    join: async (address, opts) => {
      try {
        await membership.join([address], opts);
      } catch (err) {
        throw new MembershipRequestError((err as Error).message);
      }
    },
    leave: async () => {
      await membership.leave();
      setImmediate(shutdown);
    },
    forceLeave: (node, opts) => membership.forceLeave(node, opts),
  };
}
