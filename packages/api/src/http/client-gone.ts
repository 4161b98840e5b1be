import type { ServerResponse } from "node:http";
import type { Context } from "hono";

/** Registers `abort` to run if the client disconnects; returns the unregister function. */
export type ClientGone = (abort: () => void) => () => void;

/**
 * Under @hono/node-server this listens on the Node response's `close`, which costs nothing per request;
 * the WHATWG `Request.signal` would build an AbortController for every blocked query.
 */
export function clientGone(c: Context): ClientGone {
  return (abort) => {
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (outgoing !== undefined) {
      outgoing.once("close", abort);
      return () => outgoing.off("close", abort);
    }
    const signal = c.req.raw.signal;
    signal.addEventListener("abort", abort, { once: true });
    return () => signal.removeEventListener("abort", abort);
  };
}
