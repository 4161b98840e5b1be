// The register workload's model and its per-key check: a read/write/compare-and-set register whose values
// are unique per write, so "the key's ModifyIndex is i" and "the key holds the value written at i" coincide.

import { groupBy } from "./group.js";
import { checkLinearizable, type Linearizability, type Model } from "./linearizable.js";

export type RegisterValue = string | null;

export type RegisterOp = {
  readonly process: number;
  readonly key: string;
  readonly invoke: number;
  /** Undefined: the outcome is unknown (the write may or may not have happened). */
  readonly complete: number | undefined;
} & (
  | { readonly f: "read"; readonly value: RegisterValue }
  | { readonly f: "write"; readonly value: string }
  | { readonly f: "cas"; readonly from: RegisterValue; readonly to: string; readonly ok: boolean | undefined }
);

export const registerModel: Model<RegisterValue, RegisterOp> = {
  init: () => null,
  step(state, op) {
    switch (op.f) {
      case "read":
        return op.value === state ? state : undefined;
      case "write":
        return op.value;
      case "cas":
        if (op.ok === undefined) return state === op.from ? op.to : state;
        if (op.ok) return state === op.from ? op.to : undefined;
        return state === op.from ? undefined : state;
    }
  },
  key: (state) => (state === null ? "\u0000" : state),
};

export interface RegisterVerdict {
  readonly valid: boolean | "unknown";
  readonly keys: number;
  readonly ops: number;
  readonly failures: { readonly key: string; readonly result: Linearizability<RegisterOp> }[];
}

/**
 * Checks each key on its own (a register per key is independent). Reads with an unknown outcome tell
 * nothing and are dropped; writes with an unknown outcome stay, as they may have happened at any time after
 * their invocation.
 */
export function checkRegisters(history: readonly RegisterOp[], maxStepsPerKey?: number): RegisterVerdict {
  const known = history.filter((op) => !(op.f === "read" && op.complete === undefined));
  const byKey = groupBy(known, (op) => op.key);
  const failures: RegisterVerdict["failures"][number][] = [];
  let unknown = false;
  let count = 0;
  for (const [key, ops] of byKey) {
    count += ops.length;
    const result = checkLinearizable(registerModel, ops, maxStepsPerKey);
    if (result.verdict === "linearizable") continue;
    if (result.verdict === "unknown") unknown = true;
    failures.push({ key, result });
  }
  const invalid = failures.some((f) => f.result.verdict === "not-linearizable");
  return { valid: invalid ? false : unknown ? "unknown" : true, keys: byKey.size, ops: count, failures };
}
