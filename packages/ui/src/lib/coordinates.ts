// Round-trip estimates from Serf's network coordinates, as Consul computes them (Vivaldi distance plus
// heights, with the adjustments when that stays positive).

export interface Coord {
  Vec: number[];
  Error: number;
  Adjustment: number;
  Height: number;
}

/** Estimated round-trip time in milliseconds, or undefined when the coordinates do not compare. */
export function rttMs(a: Coord | undefined, b: Coord | undefined): number | undefined {
  if (!a || !b || a.Vec.length !== b.Vec.length) return undefined;
  let sum = 0;
  for (let i = 0; i < a.Vec.length; i++) sum += (a.Vec[i]! - b.Vec[i]!) ** 2;
  const raw = Math.sqrt(sum) + a.Height + b.Height;
  const adjusted = raw + a.Adjustment + b.Adjustment;
  return (adjusted > 0 ? adjusted : raw) * 1000;
}

export function formatRtt(ms: number | undefined): string {
  if (ms === undefined) return "unknown";
  return ms < 1 ? `${ms.toFixed(3)} ms` : `${ms.toFixed(2)} ms`;
}
