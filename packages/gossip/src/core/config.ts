/** Protocol knobs, named and defaulted as hashicorp/memberlist's DefaultLANConfig / DefaultWANConfig. */
export interface GossipConfig {
  /** How often a member probes one other member (ms). */
  probeInterval: number;
  /** How long a direct ping waits for its ack before indirect probes start (ms). */
  probeTimeout: number;
  /** Members asked to probe indirectly when a direct probe fails. */
  indirectChecks: number;
  /** Retransmits of each broadcast = retransmitMult × ceil(log10(n+1)). */
  retransmitMult: number;
  /** Minimum suspicion timeout = suspicionMult × max(1, log10(n)) × probeInterval. */
  suspicionMult: number;
  /** Maximum suspicion timeout = suspicionMaxTimeoutMult × minimum; confirmations bring it down. */
  suspicionMaxTimeoutMult: number;
  /** Full-state sync interval (ms), scaled up beyond 32 members; 0 disables it. */
  pushPullInterval: number;
  /** How often a failed member is tried with a push-pull, so partitions heal (Serf's reconnect); 0 disables. */
  reconnectInterval: number;
  /** How often piggyback-only gossip packets go out (ms). */
  gossipInterval: number;
  /** Members each gossip round sends to. */
  gossipNodes: number;
  /** Dead members still receive gossip for this long (ms), so they may learn of and refute their death. */
  gossipToTheDeadTime: number;
  /** Upper bound of Lifeguard's local health multiplier. */
  awarenessMaxMultiplier: number;
  /** Byte budget for one packet's piggybacked broadcasts (memberlist's UDPBufferSize). */
  packetBudget: number;
  /** Broadcast queue bound; when exceeded, the most-retransmitted entries are dropped first. */
  maxQueuedBroadcasts: number;
  /** A member dead this long (ms) may be reclaimed by the same name at a new address (Consul sets 30 s). */
  deadNodeReclaimTime: number;
  /** A failed member is reaped (forgotten) after this long (ms): Consul's reconnect_timeout. */
  reapFailedAfter: number;
  /** A member that left is reaped after this long (ms): Serf's tombstone timeout. */
  reapLeftAfter: number;
}

const HOUR = 3_600_000;

export function lanConfig(overrides: Partial<GossipConfig> = {}): GossipConfig {
  return {
    probeInterval: 1000,
    probeTimeout: 500,
    indirectChecks: 3,
    retransmitMult: 4,
    suspicionMult: 4,
    suspicionMaxTimeoutMult: 6,
    pushPullInterval: 30_000,
    reconnectInterval: 30_000,
    gossipInterval: 200,
    gossipNodes: 3,
    gossipToTheDeadTime: 30_000,
    awarenessMaxMultiplier: 8,
    packetBudget: 1400,
    maxQueuedBroadcasts: 1024,
    deadNodeReclaimTime: 30_000,
    reapFailedAfter: 72 * HOUR,
    reapLeftAfter: 24 * HOUR,
    ...overrides,
  };
}

export function wanConfig(overrides: Partial<GossipConfig> = {}): GossipConfig {
  return lanConfig({
    probeInterval: 5000,
    probeTimeout: 3000,
    suspicionMult: 6,
    pushPullInterval: 60_000,
    gossipInterval: 500,
    gossipNodes: 4,
    gossipToTheDeadTime: 60_000,
    ...overrides,
  });
}

/** memberlist's suspicionTimeout: grows with log10 of the cluster size, never below one multiple. */
export function suspicionTimeout(suspicionMult: number, n: number, probeInterval: number): number {
  const nodeScale = Math.max(1, Math.log10(Math.max(1, n)));
  return Math.floor(suspicionMult * nodeScale * probeInterval);
}

/** memberlist's retransmitLimit: enough sends that a rumour reaches everyone with high probability. */
export function retransmitLimit(retransmitMult: number, n: number): number {
  return retransmitMult * Math.ceil(Math.log10(n + 1));
}

/** memberlist's pushPullScale: beyond 32 members, slow full syncs so their total bandwidth stays flat. */
export function pushPullScale(interval: number, n: number): number {
  const threshold = 32;
  if (n <= threshold) return interval;
  const multiplier = Math.ceil(Math.log2(n) - Math.log2(threshold)) + 1;
  return interval * multiplier;
}
