// Latency samples for load runs: every sample is kept (a 10 s run at tens of thousands of operations per
// second is a few MB), so percentiles are exact rather than bucketed.

export class Latencies {
  #samples = new Float64Array(1024);
  #count = 0;
  #sorted = true;

  get count(): number {
    return this.#count;
  }

  /** Records one latency in milliseconds. */
  record(ms: number): void {
    if (this.#count === this.#samples.length) {
      const grown = new Float64Array(this.#samples.length * 2);
      grown.set(this.#samples);
      this.#samples = grown;
    }
    this.#samples[this.#count++] = ms;
    this.#sorted = false;
  }

  /** The p-th percentile (0..100) in milliseconds, NaN when empty. */
  percentile(p: number): number {
    if (this.#count === 0) return Number.NaN;
    const view = this.#samples.subarray(0, this.#count);
    if (!this.#sorted) {
      view.sort();
      this.#sorted = true;
    }
    const rank = Math.min(this.#count - 1, Math.max(0, Math.ceil((p / 100) * this.#count) - 1));
    return view[rank] ?? Number.NaN;
  }

  max(): number {
    return this.percentile(100);
  }
}
