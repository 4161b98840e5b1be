import { ProposalDroppedError, RaftTimeoutError } from "./errors.js";
import { realScheduler, type Scheduler, type TimerHandle } from "./ports.js";

interface Waiter<T> {
  resolve(value: T): void;
  reject(err: Error): void;
  timer: TimerHandle | undefined;
  scheduler: Scheduler;
}

function waiter<T>(
  scheduler: Scheduler,
  timeoutMs: number | undefined,
  onTimeout: () => void,
): { w: Waiter<T>; promise: Promise<T> } {
  let w!: Waiter<T>;
  const promise = new Promise<T>((resolve, reject) => {
    w = { resolve, reject, timer: undefined, scheduler };
  });
  if (timeoutMs !== undefined) w.timer = scheduler.setTimeout(onTimeout, timeoutMs);
  return { w, promise };
}

function settle<T>(w: Waiter<T>, outcome: { ok: true; value: T } | { ok: false; error: Error }): void {
  if (w.timer !== undefined) w.scheduler.clearTimeout(w.timer);
  if (outcome.ok) w.resolve(outcome.value);
  else w.reject(outcome.error);
}

interface Proposal<R> {
  resolve(value: R): void;
  reject(err: Error): void;
  /** The term the entry was appended in: an entry applied at this index in another term replaced it. */
  term: number;
  /** When the proposer stops waiting (scheduler time), and the wait it was given. */
  deadline: number;
  timeoutMs: number | undefined;
}

/**
 * Proposals waiting for their entry to be applied, by index; the term tells ours from a replacement.
 *
 * One timer serves them all, armed for the earliest deadline: a timer per proposal cost a leader's write
 * path a Timeout to create and cancel for every entry, and nearly every proposal is applied long before
 * its deadline.
 */
export class PendingProposals<R> {
  private readonly byIndex = new Map<number, Proposal<R>>();
  private timer: TimerHandle | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(private readonly scheduler: Scheduler = realScheduler) {}

  add(index: number, term: number, timeoutMs: number | undefined): Promise<R> {
    // The core hands out an index again only after the entry that had it was truncated away.
    const replaced = this.byIndex.get(index);
    if (replaced) replaced.reject(new ProposalDroppedError(index));
    const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : this.scheduler.now() + timeoutMs;
    const promise = new Promise<R>((resolve, reject) => {
      this.byIndex.set(index, { resolve, reject, term, deadline, timeoutMs });
    });
    if (deadline < this.timerAt) this.arm(deadline);
    return promise;
  }

  /** The entry at `index` was applied: answer its proposer, or tell it its entry was replaced. */
  applied(index: number, term: number, outcome: { ok: true; value: R } | { ok: false; error: Error }): void {
    const p = this.byIndex.get(index);
    if (!p) return;
    this.byIndex.delete(index);
    if (p.term !== term) p.reject(new ProposalDroppedError(index));
    else if (outcome.ok) p.resolve(outcome.value);
    else p.reject(outcome.error);
  }

  /** A snapshot jumped the state past these indexes: whether they were ours cannot be told any more. */
  skippedThrough(index: number): void {
    for (const [i, p] of this.byIndex) {
      if (i > index) continue;
      this.byIndex.delete(i);
      p.reject(new RaftTimeoutError(`proposal at index ${i} outcome unknown`));
    }
  }

  failAll(error: Error): void {
    for (const p of this.byIndex.values()) p.reject(error);
    this.byIndex.clear();
  }

  private arm(at: number): void {
    if (this.timer !== undefined) this.scheduler.clearTimeout(this.timer);
    this.timerAt = at;
    // At least 1 ms: a timer may fire a little before the clock reads its deadline, and is then re-armed.
    this.timer = this.scheduler.setTimeout(() => this.expire(), Math.max(1, at - this.scheduler.now()));
  }

  /** Fails the proposals whose deadline passed and arms the timer for the next one. */
  private expire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.scheduler.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [i, p] of this.byIndex) {
      if (p.deadline <= now) {
        this.byIndex.delete(i);
        p.reject(
          new RaftTimeoutError(`proposal at index ${i} not applied in ${p.timeoutMs} ms; it may still be`),
        );
      } else if (p.deadline < next) next = p.deadline;
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
  }
}

/** ReadIndex requests: first waiting for the leader's answer (by ctx), then for the local apply to catch up. */
export class PendingReads {
  private readonly byCtx = new Map<string, Waiter<number>>();
  private catchingUp: Array<{ index: number; w: Waiter<number> }> = [];

  constructor(private readonly scheduler: Scheduler = realScheduler) {}

  add(ctx: string, timeoutMs: number): Promise<number> {
    const { w, promise } = waiter<number>(this.scheduler, timeoutMs, () => {
      this.byCtx.delete(ctx);
      this.catchingUp = this.catchingUp.filter((c) => c.w !== w);
      w.reject(new RaftTimeoutError(`read index not confirmed in ${timeoutMs} ms`));
    });
    this.byCtx.set(ctx, w);
    return promise;
  }

  /** The core answered `ctx` with a read index (or a refusal), `applied` is the local applied index. */
  answered(ctx: string, outcome: { index: number } | { error: Error }, applied: number): void {
    const w = this.byCtx.get(ctx);
    if (!w) return;
    this.byCtx.delete(ctx);
    if ("error" in outcome) settle(w, { ok: false, error: outcome.error });
    else if (outcome.index <= applied) settle(w, { ok: true, value: outcome.index });
    else this.catchingUp.push({ index: outcome.index, w });
  }

  applied(applied: number): void {
    if (this.catchingUp.length === 0) return;
    const still: typeof this.catchingUp = [];
    for (const c of this.catchingUp) {
      if (c.index <= applied) settle(c.w, { ok: true, value: c.index });
      else still.push(c);
    }
    this.catchingUp = still;
  }

  /**
   * Fails the reads still waiting for a leader's answer (not those already answered, which only wait for the
   * local apply): after a leadership change the request may have gone to a leader that will never answer.
   */
  failUnanswered(error: Error): void {
    for (const w of this.byCtx.values()) settle(w, { ok: false, error });
    this.byCtx.clear();
  }

  failAll(error: Error): void {
    for (const w of this.byCtx.values()) settle(w, { ok: false, error });
    for (const c of this.catchingUp) settle(c.w, { ok: false, error });
    this.byCtx.clear();
    this.catchingUp = [];
  }
}
