import type { PingDelegate } from "../core/types.js";
import type { VivaldiClient } from "./client.js";
import { type Coordinate, cloneCoordinate, isCoordinate } from "./coordinate.js";

/**
 * Serf's ping delegate: every direct ack carries the acker's coordinate; the prober updates its own from the
 * measured RTT and caches the peer's, so `coordinateOf(peer)` works without asking anyone.
 */
export class CoordinatePingDelegate implements PingDelegate {
  private readonly peers = new Map<string, Coordinate>();

  constructor(readonly client: VivaldiClient) {}

  ackPayload(): Coordinate {
    return this.client.coordinate();
  }

  pingComplete(node: string, rttMs: number, payload: unknown): void {
    if (!isCoordinate(payload, this.client.config.dimensionality)) return;
    if (this.client.update(node, payload, rttMs / 1000)) this.peers.set(node, cloneCoordinate(payload));
  }

  coordinateOf(node: string): Coordinate | undefined {
    const c = this.peers.get(node);
    return c && cloneCoordinate(c);
  }

  forget(node: string): void {
    this.peers.delete(node);
    this.client.forget(node);
  }
}
