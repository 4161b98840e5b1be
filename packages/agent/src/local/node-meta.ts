/** Consul's node meta key for the agent's network segment; open-source Consul has only the default, "". */
export const NETWORK_SEGMENT_META = "consul-network-segment";

/**
 * The node meta an agent registers for itself: the configured `node_meta` plus its network segment, as
 * Consul's agent adds it (so `Meta` reads `{"consul-network-segment": ""}` on a node with none configured).
 * The server's self-registration and the agent's anti-entropy both write this, so neither undoes the other.
 */
export function agentNodeMeta(configured: Readonly<Record<string, string>>): Record<string, string> {
  return { ...configured, [NETWORK_SEGMENT_META]: "" };
}
