/** The value a majority of `values` has reached: the floor(n/2)-th highest (0 when empty). Sorts in place. */
export function quorumValue(values: number[]): number {
  values.sort((a, b) => b - a);
  return values[Math.floor(values.length / 2)] ?? 0;
}

export function quorumSize(voters: number): number {
  return Math.floor(voters / 2) + 1;
}
