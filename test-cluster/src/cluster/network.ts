// Where the agents live and how traffic between them can be cut: loopback ports in the harness's own
// network namespace, or one network namespace per agent on a bridge (root on Linux).

export interface NodeAddress {
  /** The address the agent binds (Raft, gossip) and serves HTTP on; reachable from the harness. */
  readonly host: string;
  readonly httpPort: number;
  readonly serverPort: number;
  readonly serfPort: number;
}

export interface Network {
  readonly kind: "loopback" | "netns";
  /** One per agent: the servers' first, then the client agents'. */
  readonly addresses: readonly NodeAddress[];
  /** Partitions need the namespaces; on loopback they are unavailable. */
  readonly canPartition: boolean;
  /** The command prefix that runs a command on node `i` (inside its namespace); empty on loopback. */
  wrap(i: number): readonly string[];
  /** `tc netem` works in the namespaces (the kernel has sch_netem). */
  readonly canShape: boolean;
  /** Adds delay (with jitter) and loss to everything node `i` sends, until `heal`. */
  shape(i: number, delayMs: number, jitterMs: number, lossPercent: number): Promise<void>;
  /** Drops all traffic between the two nodes, both ways, until `heal`. */
  cut(a: number, b: number): Promise<void>;
  /** Restores every cut link and removes every shaping. */
  heal(): Promise<void>;
  /** Removes everything the network created; safe to call twice, and synchronous for exit hooks. */
  teardown(): void;
}

/** Node pairs that must not talk for `groups` to be cut off from each other (nodes in no group keep every link). */
export function pairsBetween(groups: readonly (readonly number[])[]): [number, number][] {
  const pairs: [number, number][] = [];
  for (let g = 0; g < groups.length; g++) {
    for (let h = g + 1; h < groups.length; h++) {
      for (const a of groups[g]!) for (const b of groups[h]!) pairs.push([a, b]);
    }
  }
  return pairs;
}

/**
 * The cuts that put each client agent on the side of a server: `anchors` pairs a client's node with a
 * server's, and the client loses every link its server lost (to servers, and to clients on the other side).
 */
export function clientPairs(
  serverPairs: readonly (readonly [number, number])[],
  anchors: readonly (readonly [client: number, server: number])[],
): [number, number][] {
  const cut = new Set(serverPairs.flatMap(([a, b]) => [`${a}-${b}`, `${b}-${a}`]));
  const pairs: [number, number][] = [];
  for (const [client, server] of anchors) {
    for (const [a, b] of serverPairs) {
      if (a === server) pairs.push([client, b]);
      else if (b === server) pairs.push([client, a]);
    }
  }
  for (let i = 0; i < anchors.length; i++) {
    for (let j = i + 1; j < anchors.length; j++) {
      const [c1, s1] = anchors[i]!;
      const [c2, s2] = anchors[j]!;
      if (cut.has(`${s1}-${s2}`)) pairs.push([c1, c2]);
    }
  }
  return pairs;
}
