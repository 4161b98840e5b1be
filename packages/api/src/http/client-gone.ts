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
  if (outgoing !== undefined)
    return (abort) => {
      outgoing.once("close", abort);
      return () => outgoing.off("close", abort);
    };
  const request = c.req.raw;
  return (abort) => {
    const signal = request.signal;
    signal.addEventListener("abort", abort, { once: true });
    return () => signal.removeEventListener("abort", abort);
  };
}
