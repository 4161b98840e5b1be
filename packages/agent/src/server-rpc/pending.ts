import { RpcError } from "@cairn/raft";

export type RpcHandler = (payload: unknown, from: string) => unknown;

/** What a failed handler sends back: enough for the caller to rebuild a typed error. */
export interface RemoteErrorPayload {
  failure: "no-handler" | "remote";
  name: string;
  message: string;
  data?: unknown;
}

export function remoteErrorPayload(err: unknown): RemoteErrorPayload {
  if (err instanceof Error) {
    const data = (err as { data?: unknown }).data;
    return {
      failure: "remote",
      name: err.name,
      message: err.message,
      ...(data === undefined ? {} : { data }),
    };
  }
  return { failure: "remote", name: "Error", message: String(err) };
}

export function errorFromRemote(payload: unknown): RpcError {
  if (typeof payload === "object" && payload !== null) {
    const p = payload as Partial<RemoteErrorPayload>;
    const failure = p.failure === "no-handler" ? "no-handler" : "remote";
    return new RpcError(failure, String(p.message ?? "remote error"), String(p.name ?? "Error"), p.data);
  }
  return new RpcError("remote", String(payload));
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: RpcError) => void;
  timer: NodeJS.Timeout;
  sent: boolean;
}

/** Outstanding requests on one link, correlated by id, each with its own deadline. */
export class PendingRequests {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** Registers a request and returns its id and the promise of its answer. */
  open(timeoutMs: number, method: string): { id: number; answer: Promise<unknown> } {
    const id = this.nextId++;
    const answer = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RpcError("timeout", `rpc ${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer, sent: false });
    });
    return { id, answer };
  }

  /** Records that the request went out on a connection; false if it has already timed out. */
  markSent(id: number): boolean {
    const p = this.pending.get(id);
    if (p) p.sent = true;
    return p !== undefined;
  }

  settle(id: number, ok: boolean, payload: unknown): void {
    const p = this.pending.get(id);
    if (!p) return; // answered after its deadline: the caller has already been told
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (ok) p.resolve(payload);
    else p.reject(errorFromRemote(payload));
  }

  fail(id: number, err: RpcError): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.reject(err);
  }

  /** Fails the requests that went out on a connection that has dropped; waiting ones keep waiting. */
  failSent(err: RpcError): void {
    for (const [id, p] of [...this.pending]) if (p.sent) this.fail(id, err);
  }

  /** Fails the requests that never went out (a dial failed under them). */
  failUnsent(err: RpcError): void {
    for (const [id, p] of [...this.pending]) if (!p.sent) this.fail(id, err);
  }

  failAll(err: RpcError): void {
    for (const id of [...this.pending.keys()]) this.fail(id, err);
  }
}
