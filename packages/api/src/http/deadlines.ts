/** A pending deadline; `cancel()` keeps it from firing (a no-op once fired). */
export interface Deadline {
  cancel(): void;
}

/** What Deadlines needs of time: a clock and one cancellable timer. */
export interface TimerHost {
  now(): number;
  setTimer(fire: () => void, delayMs: number): unknown;
  clearTimer(handle: unknown): void;
}

const nodeTimers: TimerHost = {
  now: () => performance.now(),
  setTimer: (fire, delayMs) => setTimeout(fire, delayMs).unref(),
  clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

class Entry implements Deadline {
  constructor(
    readonly due: number,
    public fire: (() => void) | undefined,
    readonly owner: Deadlines,
  ) {}

  cancel(): void {
    if (this.fire === undefined) return;
    this.fire = undefined;
    this.owner.cancelled();
  }
}

/**
 * Many timeouts on one timer: a binary min-heap of deadlines, with the host timer set for the earliest.
 * Blocking queries each hold one, nearly all with a distinct (jittered) duration, and nearly all are
 * cancelled by a change rather than fired: here a cancel only clears a field, where Node's timers keep
 * a list per distinct duration and unlink one on every clearTimeout. Cancelled entries leave the heap when
 * they reach its top or, once they outnumber the live ones, all at once.
 */
export class Deadlines {
  #heap: Entry[] = [];
  #cancelled = 0;
  #timer: unknown;
  #timerDue = Number.POSITIVE_INFINITY;

  constructor(private readonly host: TimerHost = nodeTimers) {}

  /** Calls `fire` once `delayMs` has passed, unless cancelled first. */
  after(delayMs: number, fire: () => void): Deadline {
    const entry = new Entry(this.host.now() + delayMs, fire, this);
    this.#push(entry);
    if (entry.due < this.#timerDue) this.#arm();
    return entry;
  }

  /** Deadlines not yet fired or cancelled. */
  get pending(): number {
    return this.#heap.length - this.#cancelled;
  }

  /** @internal Called by an entry when it is cancelled. */
  cancelled(): void {
    this.#cancelled++;
    if (this.#cancelled > 64 && this.#cancelled * 2 > this.#heap.length) this.#compact();
  }

  #fireDue(): void {
    this.#timer = undefined;
    this.#timerDue = Number.POSITIVE_INFINITY;
    const now = this.host.now();
    for (let top = this.#heap[0]; top !== undefined && top.due <= now; top = this.#heap[0]) {
      this.#pop();
      const fire = top.fire;
      if (fire === undefined) {
        this.#cancelled--;
        continue;
      }
      top.fire = undefined;
      fire();
    }
    this.#dropCancelledTop();
    if (this.#heap.length > 0) this.#arm();
  }

  #arm(): void {
    this.#dropCancelledTop();
    if (this.#timer !== undefined) this.host.clearTimer(this.#timer);
    this.#timer = undefined;
    this.#timerDue = Number.POSITIVE_INFINITY;
    const top = this.#heap[0];
    if (top === undefined) return;
    this.#timerDue = top.due;
    this.#timer = this.host.setTimer(() => this.#fireDue(), Math.max(0, top.due - this.host.now()));
  }

  #dropCancelledTop(): void {
    while (this.#heap[0] !== undefined && this.#heap[0].fire === undefined) {
      this.#pop();
      this.#cancelled--;
    }
  }

  #compact(): void {
    const live = this.#heap.filter((e) => e.fire !== undefined);
    this.#heap = [];
    this.#cancelled = 0;
    for (const e of live) this.#push(e);
  }

  #push(entry: Entry): void {
    const heap = this.#heap;
    let i = heap.push(entry) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.due <= entry.due) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.due < heap[left]!.due ? right : left;
      if (heap[child]!.due >= last.due) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }
}
