// The bank workload's check: every read of all accounts (one snapshot) shows every account, no negative
// balance, and the initial total.

export interface BankRead {
  readonly time: number;
  readonly balances: Readonly<Record<string, number>>;
}

export interface BankVerdict {
  readonly valid: boolean;
  readonly reads: number;
  readonly bad: readonly { readonly read: BankRead; readonly reason: string }[];
}

export function checkBank(
  reads: readonly BankRead[],
  accounts: readonly string[],
  total: number,
): BankVerdict {
  const bad: { read: BankRead; reason: string }[] = [];
  for (const read of reads) {
    const missing = accounts.filter((a) => read.balances[a] === undefined);
    const extra = Object.keys(read.balances).filter((a) => !accounts.includes(a));
    const negative = accounts.filter((a) => (read.balances[a] ?? 0) < 0);
    const sum = accounts.reduce((s, a) => s + (read.balances[a] ?? 0), 0);
    const reasons = [
      missing.length > 0 ? `missing ${missing.join(",")}` : "",
      extra.length > 0 ? `unknown accounts ${extra.join(",")}` : "",
      negative.length > 0 ? `negative ${negative.join(",")}` : "",
      sum !== total ? `total ${sum} instead of ${total}` : "",
    ].filter((r) => r !== "");
    if (reasons.length > 0) bad.push({ read, reason: reasons.join("; ") });
  }
  return { valid: bad.length === 0, reads: reads.length, bad };
}
