// Every agent on 127.0.0.1 with its own free ports. Processes can be killed and paused; links cannot be cut.

import { freePorts } from "../../../scripts/lib/ports.js";
import type { Network, NodeAddress } from "./network.js";

export async function loopbackNetwork(size: number): Promise<Network> {
  const ports = await freePorts(size * 3);
  const addresses: NodeAddress[] = Array.from({ length: size }, (_, i) => ({
    host: "127.0.0.1",
    httpPort: ports[i]!,
    serverPort: ports[size + i]!,
    serfPort: ports[2 * size + i]!,
  }));
  return {
    kind: "loopback",
    addresses,
    canPartition: false,
    wrap: () => [],
    cut: () => Promise.reject(new Error("partitions need network namespaces (run as root on Linux)")),
    canShape: false,
    shape: () => Promise.reject(new Error("tc netem needs network namespaces (run as root on Linux)")),
    heal: () => Promise.resolve(),
    teardown: () => {},
  };
}
