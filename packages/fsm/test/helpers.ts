import {
  type ApplyResult,
  type Command,
  encodeCommand,
  type RegisterSpec,
  type SessionSpec,
  StateStore,
  type TxnOp,
} from "../src/index.js";

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
export const text = (value: Uint8Array | null | undefined): string | undefined =>
  value == null ? undefined : new TextDecoder().decode(value);

type Body<T extends Command["type"]> = Omit<Extract<Command, { type: T }>, "v" | "type">;

/** A store plus a log: every write goes through encode -> apply at the next index, as on a follower. */
export class Harness {
  readonly store = new StateStore();
  readonly log: Uint8Array[] = [];
  now = 1_700_000_000_000;

  /** Creates namespaces (other than default), as writes into them need. */
  namespaces(...names: string[]): this {
    for (const Name of names) {
      this.run("namespace.set", { op: "create", namespace: { Name, Description: "" } });
    }
    return this;
  }

  apply(command: Command): ApplyResult {
    const data = encodeCommand(command);
    this.log.push(data);
    return this.store.apply(this.log.length, data);
  }

  run<T extends Command["type"]>(type: T, body: Body<T>): ApplyResult {
    return this.apply({ v: 1, type, ...body } as unknown as Command);
  }

  set(key: string, value: string, flags = 0n): ApplyResult {
    return this.run("kv.set", { key, value: bytes(value), flags });
  }

  del(key: string): ApplyResult {
    return this.run("kv.delete", { key });
  }

  registerNode(node: string, extra: Partial<RegisterSpec> = {}): ApplyResult {
    return this.run("catalog.register", {
      registration: { Node: node, Address: "10.0.0.1", ...extra },
      now: this.now,
    });
  }

  createSession(spec: Partial<SessionSpec> & { ID: string }): ApplyResult {
    return this.run("session.create", { session: { Node: "n1", ...spec }, now: this.now });
  }

  destroySession(id: string): ApplyResult {
    return this.run("session.destroy", { id, now: this.now });
  }

  lock(key: string, session: string, value = ""): ApplyResult {
    return this.run("kv.lock", { key, value: bytes(value), flags: 0n, session, now: this.now });
  }

  unlock(key: string, session: string, value = ""): ApplyResult {
    return this.run("kv.unlock", { key, value: bytes(value), flags: 0n, session });
  }

  txn(ops: TxnOp[]): ApplyResult {
    return this.run("txn", { ops, now: this.now });
  }

  snapshotBytes(): Buffer {
    return Buffer.concat([...this.store.snapshot()]);
  }
}
