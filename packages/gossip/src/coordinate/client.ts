import {
  applyForce,
  type Coordinate,
  cloneCoordinate,
  coordinateDistance,
  coordinateIsValid,
  defaultVivaldiConfig,
  isCoordinate,
  type MutableCoordinate,
  newCoordinate,
  rawDistance,
  type VivaldiConfig,
} from "./coordinate.js";

/** Serf rejects RTT samples above this as bogus. */
const MAX_RTT_SECONDS = 10;
const ZERO_THRESHOLD = 1e-6;

/**
 * Serf's Vivaldi client: keeps this node's coordinate, updated from (peer coordinate, RTT) observations with
 * a per-peer median latency filter, an adjustment term averaged over a window, and gravity towards the origin
 * so the whole system does not drift. Pure apart from the injected randomness.
 */
export class VivaldiClient {
  private coord: MutableCoordinate;
  private readonly origin: Coordinate;
  private readonly adjustmentSamples: number[];
  private adjustmentIndex = 0;
  private readonly latencySamples = new Map<string, number[]>();
  private updates = 0;

  constructor(
    private readonly random: () => number = Math.random,
    readonly config: VivaldiConfig = defaultVivaldiConfig(),
  ) {
    this.coord = newCoordinate(config);
    this.origin = newCoordinate(config);
    this.adjustmentSamples = new Array<number>(config.adjustmentWindowSize).fill(0);
  }

  coordinate(): Coordinate {
    return cloneCoordinate(this.coord);
  }

  /** Estimated RTT to `other`, in seconds. */
  distanceTo(other: Coordinate): number {
    return coordinateDistance(this.coord, other);
  }

  updateCount(): number {
    return this.updates;
  }

  /** Folds in one observation; returns false (ignoring it) for invalid coordinates or impossible RTTs. */
  update(node: string, other: unknown, rttSeconds: number): boolean {
    if (!isCoordinate(other, this.config.dimensionality)) return false;
    if (!(rttSeconds >= 0 && rttSeconds <= MAX_RTT_SECONDS)) return false;
    const rtt = this.latencyFilter(node, rttSeconds);
    this.updateVivaldi(other, rtt);
    this.updateAdjustment(other, rtt);
    this.updateGravity();
    if (!coordinateIsValid(this.coord)) {
      this.coord = newCoordinate(this.config);
      return false;
    }
    this.updates++;
    return true;
  }

  forget(node: string): void {
    this.latencySamples.delete(node);
  }

  private latencyFilter(node: string, rtt: number): number {
    const samples = this.latencySamples.get(node) ?? [];
    samples.push(rtt);
    if (samples.length > this.config.latencyFilterSize) samples.shift();
    this.latencySamples.set(node, samples);
    const sorted = [...samples].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? rtt;
  }

  private updateVivaldi(other: Coordinate, rttSeconds: number): void {
    const rtt = Math.max(rttSeconds, ZERO_THRESHOLD);
    const dist = coordinateDistance(this.coord, other);
    const wrongness = Math.abs(dist - rtt) / rtt;
    const totalError = Math.max(this.coord.Error + other.Error, ZERO_THRESHOLD);
    const weight = this.coord.Error / totalError;
    const ce = this.config.vivaldiCE;
    this.coord.Error = Math.min(
      ce * weight * wrongness + this.coord.Error * (1 - ce * weight),
      this.config.vivaldiErrorMax,
    );
    const force = this.config.vivaldiCC * weight * (rtt - dist);
    this.coord = applyForce(this.config, this.coord, force, other, this.random);
  }

  private updateAdjustment(other: Coordinate, rtt: number): void {
    const window = this.config.adjustmentWindowSize;
    if (window === 0) return;
    this.adjustmentSamples[this.adjustmentIndex] = rtt - rawDistance(this.coord, other);
    this.adjustmentIndex = (this.adjustmentIndex + 1) % window;
    let sum = 0;
    for (const sample of this.adjustmentSamples) sum += sample;
    this.coord.Adjustment = sum / (2 * window);
  }

  private updateGravity(): void {
    const dist = coordinateDistance(this.origin, this.coord);
    const force = -1 * (dist / this.config.gravityRho) ** 2;
    this.coord = applyForce(this.config, this.coord, force, this.origin, this.random);
  }
}
