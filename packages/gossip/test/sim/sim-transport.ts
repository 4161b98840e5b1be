import type { SimNetwork, VirtualClock } from "@cairn/testkit";
import { emptyTransportStats, type Message, type TransportFactory } from "../../src/index.js";

/**
 * A gossip transport over the test kit's simulated network: the member's name is its address, push-pull rides
 * a stream (never lost at random, as over ws), and sending to an address nobody listens at reports it
 * unreachable, as a refused connection does.
 */
export function simTransport(
  network: SimNetwork<readonly Message[]>,
  clock: VirtualClock,
  address: string,
): TransportFactory {
  return async (handlers) => {
    const stats = emptyTransportStats();
    network.attach(address, (from, packet) => {
      stats.framesReceived++;
      handlers.packet(from, [...packet]);
    });
    return {
      address,
      send: (to, packet) => {
        if (!network.isAttached(to)) {
          stats.dropped.unreachable++;
          clock.after(0, () => handlers.unreachable(to));
          return;
        }
        stats.framesSent++;
        network.send(address, to, packet, { reliable: packet[0]?.t === "push-pull" });
      },
      stats: () => ({ ...stats, dropped: { ...stats.dropped } }),
      close: async () => network.detach(address),
    };
  };
}
