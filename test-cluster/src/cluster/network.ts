// Where the servers live and how traffic between them can be cut: loopback ports in the harness's own
// network namespace, or one network namespace per server on a bridge (root on Linux).

export interface NodeAddress {
  /** The address the server binds (Raft, gossip) and serves HTTP on; reachable from the harness. */
  readonly host: string;
  readonly httpPort: number;
  readonly serverPort: number;
  readonly serfPort: number;
}

export interface Network {
  readonly kind: "loopback" | "netns";
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
