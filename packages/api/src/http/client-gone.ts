import type { ServerResponse } from "node:http";
import type { Context } from "hono";

/** Registers `abort` to run if the client disconnects; returns the unregister function. */
export type ClientGone = (abort: () => void) => () => void;

/**
 * Under @hono/node-server this listens on the Node response's `close`, which costs nothing per request;
 * the WHATWG `Request.signal` would build an AbortController for every blocked query. The hook holds the
 * Node response or the signal, not the Context: a parked query (parked.ts) keeps it while it waits.
 */
export function clientGone(c: Context): ClientGone {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing !== undefined) return responseGone(outgoing);
  const request = c.req.raw;
  // The signal is read only when something waits on it: reading it builds its AbortController.
  return (abort) => signalGone(request.signal)(abort);
}

/** The client of a Node response is gone when the response closes; `abort` runs at once if it has. */
export function responseGone(outgoing: ServerResponse): ClientGone {
  return (abort) => {
    if (outgoing.closed) {
      abort();
      return noop;
    }
    outgoing.once("close", abort);
    return () => outgoing.off("close", abort);
  };
}

/** The client is gone when `signal` aborts; `abort` runs at once if it has. */
export function signalGone(signal: AbortSignal): ClientGone {
  return (abort) => {
    if (signal.aborted) {
      abort();
      return noop;
    }
    signal.addEventListener("abort", abort, { once: true });
    return () => signal.removeEventListener("abort", abort);
  };
}

const noop = () => {};
