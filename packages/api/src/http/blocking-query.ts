import type { StateView, WatchSet } from "@cairn/fsm";
import type { Context } from "hono";
import type { LeaderContact } from "../backend.js";
import type { StateReader } from "../state-reader.js";
import { type ClientGone, clientGone } from "./client-gone.js";
import { Deadlines } from "./deadlines.js";
import type { ApiEnv } from "./env.js";
import { errorResponse, type FailedRequest } from "./error-handler.js";
import { parked } from "./parked.js";
import type { ReadMeta } from "./read-meta.js";
import type { ReadOptions } from "./read-options.js";
import type { RouteContext } from "./route-context.js";

/** One run of a read against a store view: the answer, its index, and what would change it. */
export interface ReadRun<T> {
  readonly value: T;
  /** Highest modify index the read covered; 0 is reported as 1. */
  readonly index: number;
  readonly watch: WatchSet;
}

export type ReadFn<V, T> = (view: V) => ReadRun<T>;

export interface ReadAnswer<T> {
  result: T;
  meta: ReadMeta;
  /** The store view the result was read from (answers built from the same view are the same). */
  view: StateView;
}

/** The wait timeouts of every blocking query in the process. */
const deadlines = new Deadlines();

/**
 * Serves a read in the requested consistency mode and answers with `respond`'s Response, blocking when the
 * client sent `index`: the read runs on a fresh store view, and while its index is still the client's it
 * waits for a change to what the read covered, up to `wait`. It answers at once when `index` is 0, when the
 * data moved past the client's index, and when the store's own index is behind the client's (a snapshot
 * restore went back in time).
 *
 * A query that has to wait answers a placeholder at once (parked.ts), so nothing of Hono's request is held
 * while it waits: `read` and `respond` run again once the data moved, and must not hold the Context.
 */
export async function blockingAnswer<T>(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  opts: ReadOptions,
  read: ReadFn<StateView, T>,
  respond: (answer: ReadAnswer<T>) => Response,
): Promise<Response> {
  const store = ctx.backend.store;
  const contact = await ctx.backend.readBarrier(opts.consistency, opts.maxStaleMs);
  const first = firstRead(contact, store, opts, read);
  if (!isWaiting(first)) return respond(first);
  // Taken from the Context now: the continuation below must not hold it. (No HEAD gets here, whose answer
  // Hono would copy from the placeholder: route() answers HEAD 405, as Consul does.)
  const failed: FailedRequest = { log: c.get("log"), method: c.req.method, path: c.req.path };
  return parked(
    waitForChange(ctx, store, opts, read, clientGone(c), first)
      .then(respond)
      .catch((err: unknown) => errorResponse(err, failed)),
  );
}

/** A read whose answer the client already has: what waiting for the next one starts from. */
interface Waiting<T> {
  contact: LeaderContact;
  view: StateView;
  run: ReadRun<T>;
}

/**
 * The read run once: its answer, unless the client already has it and asked to wait for another. Most reads
 * end here, so the answer itself is returned, not wrapped in another object.
 */
function firstRead<T>(
  contact: LeaderContact,
  store: StateReader,
  opts: ReadOptions,
  read: ReadFn<StateView, T>,
): ReadAnswer<T> | Waiting<T> {
  const view = store.view();
  const run = read(view);
  if (opts.minIndex === 0n || !stillCurrent(run, opts.minIndex)) return answerOf(run, contact, view);
  return { contact, view, run };
}

function isWaiting<T>(first: ReadAnswer<T> | Waiting<T>): first is Waiting<T> {
  return "run" in first;
}

function answerOf<T>(run: ReadRun<T>, contact: LeaderContact, view: StateView): ReadAnswer<T> {
  return {
    result: run.value,
    meta: { index: run.index, knownLeader: contact.knownLeader, lastContactMs: contact.lastContactMs },
    view,
  };
}

/** The blocking part of `blockingAnswer`: waits while the read's answer is still the client's. */
async function waitForChange<T>(
  ctx: RouteContext,
  store: StateReader,
  opts: ReadOptions,
  read: ReadFn<StateView, T>,
  onClientGone: ClientGone,
  first: Waiting<T>,
): Promise<ReadAnswer<T>> {
  let { contact, view, run } = first;
  // No AbortController or Node timer per held query: a deadline on the shared queue, one client-gone hook
  // and a watcher handle the registry wakes directly. Thousands of these are held at once.
  let timedOut = false;
  let watcher: ReturnType<StateReader["watches"]["listen"]>;
  let wakeUp: (() => void) | undefined;
  const expire = () => {
    timedOut = true;
    watcher?.cancel();
    wakeUp?.();
  };
  const deadline = deadlines.after(opts.waitMs, expire);
  const unsubscribe = onClientGone(expire);
  try {
    while (!timedOut) {
      await new Promise<void>((resolve) => {
        watcher = store.watches.listen(run.watch, resolve);
        // An undefined watcher means the store moved on since the read: read again now.
        wakeUp = watcher ? resolve : undefined;
        if (!watcher) resolve();
      });
      watcher = undefined;
      wakeUp = undefined;
      if (timedOut) break;
      // A consistent read must be confirmed again; the other modes read the now-newer local data.
      if (opts.consistency === "consistent") contact = await ctx.backend.readBarrier("consistent");
      view = store.view();
      run = read(view);
      if (!stillCurrent(run, opts.minIndex)) break;
    }
  } finally {
    deadline.cancel();
    unsubscribe();
  }
  return answerOf(run, contact, view);
}

/** The client already has this answer: same index, and the store has not gone back in time. */
function stillCurrent(run: ReadRun<unknown>, minIndex: bigint): boolean {
  return BigInt(Math.max(run.index, 1)) <= minIndex && BigInt(run.watch.index) >= minIndex;
}
