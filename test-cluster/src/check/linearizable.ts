// Linearizability of one object's history: Wing & Gong's search with Lowe's just-in-time linearization and
// memoization of (linearized set, model state) pairs, as in Lowe's "Testing for linearizability" and
// porcupine. Pure: the history is data, the model is a step function.

/** One operation: invoked at `invoke`; `complete` is undefined when its outcome is unknown (timeout, lost connection). */
export interface TimedOp {
  readonly invoke: number;
  readonly complete: number | undefined;
}

export interface Model<S, O extends TimedOp> {
  init(): S;
  /** The state after `op` applied to `state`, or undefined when `op` could not have returned what it did there. */
  step(state: S, op: O): S | undefined;
  /** Equal states give equal keys (memoization). */
  key(state: S): string;
}

export type Linearizability<O> =
  | { readonly verdict: "linearizable" }
  | {
      readonly verdict: "not-linearizable";
      /** The longest order found that could be linearized, then the op that could not follow it. */
      readonly longestPrefix: readonly O[];
      readonly stuckAt: O;
    }
  | { readonly verdict: "unknown"; readonly reason: string };

interface Entry {
  readonly op: number;
  readonly call: boolean;
  readonly time: number;
  match: Entry | undefined;
  prev: Entry | undefined;
  next: Entry | undefined;
}

function buildList<O extends TimedOp>(ops: readonly O[]): Entry {
  const entries: Entry[] = [];
  ops.forEach((op, i) => {
    const call: Entry = {
      op: i,
      call: true,
      time: op.invoke,
      match: undefined,
      prev: undefined,
      next: undefined,
    };
    const ret: Entry = {
      op: i,
      call: false,
      time: op.complete ?? Number.POSITIVE_INFINITY,
      match: undefined,
      prev: undefined,
      next: undefined,
    };
    call.match = ret;
    entries.push(call, ret);
  });
  // At equal times calls come first: touching operations count as concurrent (the permissive reading).
  entries.sort((a, b) => a.time - b.time || (a.call === b.call ? 0 : a.call ? -1 : 1));
  const head: Entry = { op: -1, call: false, time: -1, match: undefined, prev: undefined, next: undefined };
  let last = head;
  for (const e of entries) {
    last.next = e;
    e.prev = last;
    last = e;
  }
  return head;
}

/** Removes a call and its return from the list; their own links stay set so that `unlift` can put them back. */
function lift(call: Entry): void {
  call.prev!.next = call.next;
  if (call.next) call.next.prev = call.prev;
  const ret = call.match!;
  ret.prev!.next = ret.next;
  if (ret.next) ret.next.prev = ret.prev;
}

function unlift(call: Entry): void {
  const ret = call.match!;
  ret.prev!.next = ret;
  if (ret.next) ret.next.prev = ret;
  call.prev!.next = call;
  if (call.next) call.next.prev = call;
}

class BitSet {
  private readonly words: Uint32Array;
  constructor(size: number) {
    this.words = new Uint32Array(Math.ceil(size / 32));
  }
  set(i: number): void {
    this.words[i >>> 5]! |= 1 << (i & 31);
  }
  clear(i: number): void {
    this.words[i >>> 5]! &= ~(1 << (i & 31));
  }
  key(): string {
    return this.words.join(",");
  }
}

/**
 * Searches for a linearization of `ops`. `maxSteps` bounds the search (it is exponential in the worst case);
 * running out gives "unknown", never a false verdict.
 */
export function checkLinearizable<S, O extends TimedOp>(
  model: Model<S, O>,
  ops: readonly O[],
  maxSteps = 2_000_000,
): Linearizability<O> {
  const head = buildList(ops);
  const linearized = new BitSet(ops.length);
  const seen = new Set<string>();
  const stack: { call: Entry; state: S }[] = [];
  let state = model.init();
  let entry = head.next;
  let steps = 0;
  let best: { prefix: number[]; stuck: number } | undefined;

  while (head.next !== undefined) {
    if (++steps > maxSteps) return { verdict: "unknown", reason: `search gave up after ${maxSteps} steps` };
    if (entry === undefined) throw new Error("linearizability search ran off the end of the history");
    if (entry.call) {
      const next = model.step(state, ops[entry.op]!);
      if (next !== undefined) {
        linearized.set(entry.op);
        const memo = `${linearized.key()}|${model.key(next)}`;
        if (!seen.has(memo)) {
          seen.add(memo);
          stack.push({ call: entry, state });
          state = next;
          lift(entry);
          entry = head.next;
          continue;
        }
        linearized.clear(entry.op);
      }
      entry = entry.next;
      continue;
    }
    // A return whose operation has not been linearized yet: every choice so far fails, so backtrack.
    if (best === undefined || stack.length >= best.prefix.length) {
      best = { prefix: stack.map((s) => s.call.op), stuck: entry.op };
    }
    const top = stack.pop();
    if (top === undefined) {
      return {
        verdict: "not-linearizable",
        longestPrefix: best.prefix.map((i) => ops[i]!),
        stuckAt: ops[best.stuck]!,
      };
    }
    state = top.state;
    linearized.clear(top.call.op);
    unlift(top.call);
    entry = top.call.next;
  }
  return { verdict: "linearizable" };
}
