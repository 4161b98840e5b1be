/**
 * A deliberately naive reference model of the KV, session and lock rules (spec 2 and Consul's state store):
 * plain Maps and linear scans, no trees, no indexes, no copy-on-write. The property test checks the real
 * store against it.
 */
export interface ModelEntry {
  value: string;
  flags: bigint;
  create: number;
  modify: number;
  lockIndex: number;
  session: string | undefined;
}

export interface ModelSession {
  behavior: "release" | "delete";
  lockDelayMs: number;
}

export type ModelKVOp =
  | { verb: "set"; key: string; value: string; flags: bigint }
  | { verb: "cas"; key: string; value: string; index: number }
  | { verb: "get"; key: string }
  | { verb: "delete"; key: string }
  | { verb: "delete-cas"; key: string; index: number }
  | { verb: "delete-tree"; key: string }
  | { verb: "check-index"; key: string; index: number }
  | { verb: "check-not-exists"; key: string }
  | { verb: "check-session"; key: string; session: string }
  | { verb: "lock"; key: string; value: string; session: string }
  | { verb: "unlock"; key: string; value: string; session: string };

export class Model {
  kv = new Map<string, ModelEntry>();
  tombstones = new Map<string, number>();
  sessions = new Map<string, ModelSession>();
  lockDelays = new Map<string, number>();
  kvsIndex = 0;
  sessionsIndex = 0;

  clone(): Model {
    const m = new Model();
    m.kv = new Map([...this.kv].map(([k, e]) => [k, { ...e }]));
    m.tombstones = new Map(this.tombstones);
    m.sessions = new Map(this.sessions);
    m.lockDelays = new Map(this.lockDelays);
    m.kvsIndex = this.kvsIndex;
    m.sessionsIndex = this.sessionsIndex;
    return m;
  }

  write(key: string, e: ModelEntry, idx: number): void {
    this.kv.set(key, e);
    this.kvsIndex = idx;
  }

  set(idx: number, key: string, value: string, flags: bigint): void {
    const old = this.kv.get(key);
    this.write(
      key,
      {
        value,
        flags,
        create: old?.create ?? idx,
        modify: idx,
        lockIndex: old?.lockIndex ?? 0,
        session: old?.session,
      },
      idx,
    );
  }

  cas(idx: number, key: string, value: string, index: number): boolean {
    const old = this.kv.get(key);
    if (index === 0 && old) return false;
    if (index !== 0 && old?.modify !== index) return false;
    this.set(idx, key, value, 0n);
    return true;
  }

  delete(idx: number, key: string): void {
    if (!this.kv.has(key)) return;
    this.kv.delete(key);
    this.tombstones.set(key, idx);
    this.kvsIndex = idx;
  }

  deleteCas(idx: number, key: string, index: number): boolean {
    const old = this.kv.get(key);
    if (!old) return true;
    if (old.modify !== index) return false;
    this.delete(idx, key);
    return true;
  }

  deleteTree(idx: number, prefix: string): void {
    for (const k of [...this.kv.keys()]) if (k.startsWith(prefix)) this.delete(idx, k);
  }

  /** "error" for an unknown session. */
  lock(idx: number, key: string, value: string, session: string, now: number): boolean | "error" {
    if ((this.lockDelays.get(key) ?? 0) > now) return false;
    if (!this.sessions.has(session)) return "error";
    const old = this.kv.get(key);
    if (old?.session && old.session !== session) return false;
    const lockIndex = old ? (old.session === session ? old.lockIndex : old.lockIndex + 1) : 1;
    this.write(key, { value, flags: 0n, create: old?.create ?? idx, modify: idx, lockIndex, session }, idx);
    return true;
  }

  unlock(idx: number, key: string, value: string, session: string): boolean {
    const old = this.kv.get(key);
    if (!old || old.session !== session) return false;
    this.write(key, { ...old, value, flags: 0n, modify: idx, session: undefined }, idx);
    return true;
  }

  createSession(idx: number, id: string, s: ModelSession): boolean {
    if (this.sessions.has(id)) return false;
    this.sessions.set(id, s);
    this.sessionsIndex = idx;
    return true;
  }

  destroySession(idx: number, id: string, now: number): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    this.sessionsIndex = idx;
    for (const [k, until] of [...this.lockDelays]) if (until <= now) this.lockDelays.delete(k);
    for (const [key, e] of [...this.kv]) {
      if (e.session !== id) continue;
      if (s.lockDelayMs > 0) this.lockDelays.set(key, now + s.lockDelayMs);
      if (s.behavior === "delete") this.delete(idx, key);
      else this.write(key, { ...e, modify: idx, session: undefined }, idx);
    }
  }

  /** Returns the failing op indexes, or the keys of the results. */
  txn(idx: number, ops: readonly ModelKVOp[], now: number): { errors: number[]; results: string[] } {
    const work = this.clone();
    const errors: number[] = [];
    const results: string[] = [];
    ops.forEach((op, i) => {
      const ok = work.kvOp(idx, op, now, results);
      if (!ok) errors.push(i);
    });
    if (errors.length === 0) Object.assign(this, work);
    return errors.length ? { errors, results: [] } : { errors, results };
  }

  private kvOp(idx: number, op: ModelKVOp, now: number, results: string[]): boolean {
    const has = () => this.kv.has(op.key);
    const out = () => {
      if (this.kv.has(op.key)) results.push(op.key);
      return true;
    };
    switch (op.verb) {
      case "set":
        this.set(idx, op.key, op.value, op.flags);
        return out();
      case "cas":
        return this.cas(idx, op.key, op.value, op.index) && out();
      case "get":
        return has() && out();
      case "delete":
        this.delete(idx, op.key);
        return true;
      case "delete-cas":
        return this.deleteCas(idx, op.key, op.index);
      case "delete-tree":
        this.deleteTree(idx, op.key);
        return true;
      case "check-index":
        return this.kv.get(op.key)?.modify === op.index && out();
      case "check-not-exists":
        return !has();
      case "check-session":
        return has() && this.kv.get(op.key)?.session === op.session && out();
      case "lock":
        return this.lock(idx, op.key, op.value, op.session, now) === true && out();
      case "unlock":
        return this.unlock(idx, op.key, op.value, op.session) && out();
    }
  }

  getIndex(key: string): number {
    return Math.max(this.kv.get(key)?.modify ?? this.kvsIndex, 1);
  }

  listIndex(prefix: string): number {
    if (prefix === "") return Math.max(this.kvsIndex, 1);
    let max = 0;
    for (const [k, e] of this.kv) if (k.startsWith(prefix)) max = Math.max(max, e.modify);
    for (const [k, at] of this.tombstones) if (k.startsWith(prefix)) max = Math.max(max, at);
    return Math.max(max || this.kvsIndex, 1);
  }
}
