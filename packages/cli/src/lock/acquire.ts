// Acquisition as `cairn lock` runs it: a session, then the lock or semaphore slot, all within one deadline
// (-timeout) and one shutdown signal. The deadline starts before the session is created: -timeout bounds the
// whole wait, not only the part after the first request came back.

import type { Clock } from "../clock.js";
import { errorText } from "../command.js";
import type { SessionSpec } from "../session-api.js";
import type { Held, Locker } from "./lockers.js";
import { type SessionCalls, SessionKeeper } from "./session.js";

export type Acquisition =
  | { kind: "held"; held: Held; session: SessionKeeper }
  /** Shutdown or the deadline came first; nothing is held any more. */
  | { kind: "stopped" }
  | { kind: "failed"; message: string };

export interface AcquireOptions {
  sessions: SessionCalls;
  spec: SessionSpec;
  locker: Locker;
  /** 0 waits for ever. */
  timeoutMs: number;
  shutdown: AbortSignal;
  clock: Clock;
}

export async function acquireLock(opts: AcquireOptions): Promise<Acquisition> {
  const deadline = opts.timeoutMs > 0 ? opts.clock.deadline(opts.timeoutMs) : undefined;
  const stop = deadline === undefined ? opts.shutdown : AbortSignal.any([opts.shutdown, deadline.signal]);
  try {
    let session: SessionKeeper;
    try {
      session = await SessionKeeper.start(opts.sessions, opts.spec, stop);
    } catch (err) {
      // A create aborted in flight may leave a session behind; it holds nothing and ends with its TTL.
      if (stop.aborted) return { kind: "stopped" };
      return { kind: "failed", message: `failed to create session: ${errorText(err)}` };
    }
    let held: Held | undefined;
    try {
      held = await opts.locker.acquire(session.id, AbortSignal.any([stop, session.gone]));
    } catch (err) {
      await session.stop().catch(() => undefined);
      return { kind: "failed", message: errorText(err) };
    }
    if (held === undefined) {
      // Destroying the session also gives up a lock whose acquiring write was aborted after it applied.
      await session.stop().catch(() => undefined);
      return { kind: "stopped" };
    }
    return { kind: "held", held, session };
  } finally {
    deadline?.cancel();
  }
}
