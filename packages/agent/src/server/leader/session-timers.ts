import { parseDurationMs } from "@cairn/duration";
import type { ApplyResult, Command, Session, StateStore } from "@cairn/fsm";
import type { Logger } from "pino";

/** Consul's leader waits twice the TTL before invalidating: the spec's "reaping may take up to twice the TTL". */
export const SESSION_TTL_MULTIPLIER = 2;
const RETRY_MS = 1_000;

export interface SessionTimerDeps {
  store: StateStore;
  /** Proposes the invalidation of an expired session. */
  invalidate(session: Session): Promise<void>;
  log: Logger;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

/**
 * The leader's session TTL timers. On taking leadership every session with a TTL gets a full timer (time
 * spent under the previous leader is forgiven, as in Consul); a renew restarts it; expiry proposes an
 * invalidation, which applies the session's Behavior and lock-delay on every server.
 */
export class SessionTimers {
  private readonly timers = new Map<string, unknown>();
  private active = false;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(private readonly deps: SessionTimerDeps) {
    this.setTimer =
      deps.setTimer ??
      ((fn, ms) => {
        const t = setTimeout(fn, ms);
        t.unref();
        return t;
      });
    this.clearTimer = deps.clearTimer ?? ((h) => clearTimeout(h as NodeJS.Timeout));
  }

  get size(): number {
    return this.timers.size;
  }

  start(): void {
    this.active = true;
    this.resetAll();
  }

  stop(): void {
    this.active = false;
    for (const handle of this.timers.values()) this.clearTimer(handle);
    this.timers.clear();
  }

  /** Restarts the session's timer (a renew); no-op when not leading or without a TTL. */
  renew(session: Session): void {
    if (!this.active) return;
    const ms = ttlMs(session.TTL);
    if (ms === undefined) return;
    this.arm(session.ID, ms * SESSION_TTL_MULTIPLIER);
  }

  /** Keeps timers in step with the applied log. */
  applied(command: Command, result: ApplyResult): void {
    if (!this.active) return;
    if (command.type === "session.create") {
      if (typeof result === "object" && "ID" in result) {
        const session = this.deps.store.view().sessionGet(result.ID, "*").value;
        if (session) this.renew(session);
      }
    } else if (command.type === "session.destroy" || command.type === "session.invalidate") {
      this.clear(command.id);
    }
  }

  /** The whole state changed (a restore): timers follow the sessions it holds. */
  resetAll(): void {
    if (!this.active) return;
    for (const handle of this.timers.values()) this.clearTimer(handle);
    this.timers.clear();
    for (const session of this.deps.store.view().sessionList("*").value) this.renew(session);
  }

  private clear(id: string): void {
    const handle = this.timers.get(id);
    if (handle === undefined) return;
    this.clearTimer(handle);
    this.timers.delete(id);
  }

  private arm(id: string, ms: number): void {
    this.clear(id);
    this.timers.set(
      id,
      this.setTimer(() => this.expire(id), ms),
    );
  }

  private expire(id: string): void {
    this.timers.delete(id);
    if (!this.active) return;
    // Sessions also end by other paths (destroy, a failing check, a node deregistration).
    const session = this.deps.store.view().sessionGet(id, "*").value;
    if (!session) return;
    this.deps.log.info({ session: id, ttl: session.TTL }, "session TTL expired, invalidating");
    this.deps.invalidate(session).catch((err: Error) => {
      if (!this.active) return;
      this.deps.log.warn(
        { session: id, err: err.message },
        "invalidating an expired session failed; retrying",
      );
      this.timers.set(
        id,
        this.setTimer(() => this.expire(id), RETRY_MS),
      );
    });
  }
}

function ttlMs(ttl: string): number | undefined {
  if (ttl === "") return undefined;
  // The fsm refused malformed TTLs at create; a stored one always parses.
  const ms = parseDurationMs(ttl);
  return ms <= 0 ? undefined : ms;
}
