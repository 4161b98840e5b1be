/**
 * `?passing` on health service reads: drops every entry with any check not passing (warning counts as not
 * passing; maintenance checks are critical). Consul removes an entry by moving the last one into its slot,
 * so the surviving order is Consul's too.
 */
export function onlyPassing<T extends { readonly checks: readonly { readonly Status: string }[] }>(
  entries: T[],
): T[] {
  const out = [...entries];
  let n = out.length;
  for (let i = 0; i < n; i++) {
    if (out[i]!.checks.every((c) => c.Status === "passing")) continue;
    out[i] = out[n - 1]!;
    n--;
    i--;
  }
  out.length = n;
  return out;
}
