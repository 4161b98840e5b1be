/**
 * Serf's Lamport clock for user events: a sender stamps the current time and moves past it; a receiver
 * that witnesses a time at or past its own moves just beyond it, so later sends order after what it saw.
 */
export class LamportClock {
  #time = 0;

  /** The current time. */
  time(): number {
    return this.#time;
  }

  /** Stamps a new event: returns the current time and advances past it. */
  tick(): number {
    return this.#time++;
  }

  /** Brings the clock past a time seen on another agent. */
  witness(time: number): void {
    if (time >= this.#time) this.#time = time + 1;
  }
}
