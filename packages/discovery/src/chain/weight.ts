/**
 * Split weights are Go float32s: flattening a splitter into its parent multiplies in float32 and rounds to
 * two decimals as Consul's NormalizeServiceSplitWeight does, and JSON shows the shortest decimal that reads
 * back as the same float32.
 */

const f32 = Math.fround;

/** The shortest decimal form of a float32, as a JS number (so it prints as Go prints it). */
export function float32Json(weight: number): number {
  const w = f32(weight);
  for (let digits = 1; digits < 10; digits++) {
    const candidate = Number(w.toPrecision(digits));
    if (f32(candidate) === w) return candidate;
  }
  return w;
}

export function normalizeWeight(weight: number): number {
  return f32(f32(Math.round(f32(weight * 100))) / 100);
}

/** The weight of an inner split as seen from the outer splitter. */
export function effectiveWeight(outer: number, inner: number): number {
  return normalizeWeight(f32(f32(f32(outer) * f32(inner)) / 100));
}
