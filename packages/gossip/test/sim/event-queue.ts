/** Binary min-heap of timed events; ties break by insertion order so runs are deterministic. */
export class EventQueue<T> {
  private heap: { at: number; order: number; item: T }[] = [];
  private order = 0;

  push(at: number, item: T): void {
    const heap = this.heap;
    heap.push({ at, order: this.order++, item });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  peekTime(): number {
    return this.heap[0]?.at ?? Number.POSITIVE_INFINITY;
  }

  pop(): { at: number; item: T } | undefined {
    const heap = this.heap;
    const top = heap[0];
    if (!top) return undefined;
    const last = heap.pop();
    if (last && heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && this.less(l, m)) m = l;
        if (r < heap.length && this.less(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top;
  }

  private less(a: number, b: number): boolean {
    const x = this.heap[a];
    const y = this.heap[b];
    if (!x || !y) return false;
    return x.at < y.at || (x.at === y.at && x.order < y.order);
  }

  private swap(a: number, b: number): void {
    const x = this.heap[a];
    const y = this.heap[b];
    if (!x || !y) return;
    this.heap[a] = y;
    this.heap[b] = x;
  }
}
