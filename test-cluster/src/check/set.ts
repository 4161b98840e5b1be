// The set workload's check: every acknowledged add is in the final read, nothing appears twice, and nothing
// appears that was never added or whose add definitely failed.

export interface SetAdd {
  readonly key: string;
  readonly element: string;
  /** "ok": acknowledged; "fail": definitely not applied (the CAS answered false); "unknown": timed out. */
  readonly outcome: "ok" | "fail" | "unknown";
}

export interface SetVerdict {
  readonly valid: boolean | "unknown";
  readonly acknowledged: number;
  readonly unknownAdds: number;
  /** Unknown adds that turned out applied. */
  readonly recovered: number;
  readonly lost: readonly string[];
  readonly duplicated: readonly string[];
  readonly unexpected: readonly string[];
  /** Keys whose final read is missing (the cluster never answered it). */
  readonly unread: readonly string[];
}

export function checkSet(
  adds: readonly SetAdd[],
  finalReads: ReadonlyMap<string, readonly string[]>,
): SetVerdict {
  const outcome = new Map<string, SetAdd>();
  for (const add of adds) outcome.set(`${add.key}/${add.element}`, add);
  const lost: string[] = [];
  const duplicated: string[] = [];
  const unexpected: string[] = [];
  const unread = new Set<string>();
  let recovered = 0;
  const present = new Set<string>();
  for (const [key, elements] of finalReads) {
    for (const element of elements) {
      const id = `${key}/${element}`;
      if (present.has(id)) {
        duplicated.push(id);
        continue;
      }
      present.add(id);
      const add = outcome.get(id);
      if (add === undefined || add.outcome === "fail") unexpected.push(id);
      else if (add.outcome === "unknown") recovered++;
    }
  }
  for (const add of adds) {
    if (!finalReads.has(add.key)) {
      unread.add(add.key);
      continue;
    }
    if (add.outcome === "ok" && !present.has(`${add.key}/${add.element}`))
      lost.push(`${add.key}/${add.element}`);
  }
  const broken = lost.length + duplicated.length + unexpected.length > 0;
  return {
    valid: broken ? false : unread.size > 0 ? "unknown" : true,
    acknowledged: adds.filter((a) => a.outcome === "ok").length,
    unknownAdds: adds.filter((a) => a.outcome === "unknown").length,
    recovered,
    lost,
    duplicated,
    unexpected,
    unread: [...unread],
  };
}
