// A session kept alive for as long as a lock may be held: renewed every half TTL (at the TTL the server
// granted, which may be longer than asked), destroyed on stop. A renewal answered 404 means the session
// is gone, and so is any lock it held.
import { parseDurationMs } from "@cairn/duration";
import type { SessionSpec } from "../session-api.js";

/** The session calls a keeper makes (SessionApi over HTTP). */
export interface SessionCalls {
  create(spec: SessionSpec, signal?: AbortSignal): Promise<string>;
  renew(id: string): Promise<string | undefined>;
  destroy(id: string): Promise<void>;
}

export class SessionKeeper {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly goneSignal = new AbortController();

  private constructor(
    private readonly api: SessionCalls,
    readonly id: string,
    private ttlMs: number,
  ) {
    this.schedule();
  }

  static async start(api: SessionCalls, spec: SessionSpec, signal?: AbortSignal): Promise<SessionKeeper> {
    const id = await api.create(spec, signal);
    return new SessionKeeper(api, id, parseDurationMs(spec.ttl));
  }

  /** Aborted when the server says the session no longer exists. */
  get gone(): AbortSignal {
    return this.goneSignal.signal;
  }

  private schedule(delayMs = this.ttlMs / 2): void {
    this.timer = setTimeout(() => void this.renew(), delayMs);
  }

  private async renew(): Promise<void> {
    let granted: string | undefined;
    try {
      granted = await this.api.renew(this.id);
    } catch {
      // A transient failure: try again soon; the TTL leaves room for a few attempts.
      if (!this.stopped) this.schedule(Math.min(1000, this.ttlMs / 4));
      return;
    }
    if (this.stopped) return;
    if (granted === undefined) {
      this.goneSignal.abort();
      return;
    }
    try {
      if (granted !== "") this.ttlMs = parseDurationMs(granted);
    } catch {
      // Keep the TTL we asked for if the server's is unreadable.
    }
    this.schedule();
  }

  /** Stops renewing and destroys the session (releasing or deleting what it holds, per its behavior). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    await this.api.destroy(this.id);
  }
}
