import type { IncomingMessage, ServerResponse } from "node:http";
import { responseGone } from "./client-gone.js";
import { type KnownForm, knownForm, varyWithAcceptEncoding, withKnownForm } from "./known-form.js";
import { SharedQueries, shareKey } from "./shared-queries.js";

type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

/** An answer given to every caller of a shared run: complete headers, bytes, and rendered once (wire.ts). */
type SharedForm = KnownForm & { readonly headers: Readonly<Record<string, string>>; readonly reusable: true };

/**
 * Identical blocking queries to a server's HTTP API share one run of `fetch` (shared-queries.ts says which,
 * and for how long). When 10,000 clients wait on one key, a change used to wake, re-read and answer each
 * held request through the routes on its own; now one request is held, and its answer, made into one
 * reusable form, goes to every caller: the HTTP edge renders it once and writes the same bytes to each
 * connection (wire.ts). What the run sees is the first caller's request, with its own signal, which aborts
 * when every caller has gone.
 *
 * Besides URL and headers, the peer's address is part of a query's identity: `near=_ip` sorts by it.
 * Only requests served by @hono/node-server take part (the others have no connection to watch).
 */
export function shareBlockingQueries(fetch: Fetch, now: () => number = Date.now): Fetch {
  const queries = new SharedQueries<SharedForm>(now);
  return (request, env) => {
    const { incoming, outgoing } = (env ?? {}) as { incoming?: IncomingMessage; outgoing?: ServerResponse };
    const url = incoming?.url;
    // Most requests are no blocking query: told apart before anything is built for them.
    if (incoming === undefined || outgoing === undefined || url === undefined || !url.includes("index="))
      return fetch(request, env);
    const share = shareKey({ method: request.method, url, headers: identity(incoming) });
    if (share === undefined) return fetch(request, env);
    return queries
      .answer(
        share,
        responseGone(outgoing),
        (signal) => run(fetch, request, incoming, signal),
        () => CANCELLED,
      )
      .then(responseOf);
  };
}

/** The headers as received, and the peer's address under a name no header can have. */
function identity(incoming: IncomingMessage): [string, string][] {
  const raw = incoming.rawHeaders;
  const out: [string, string][] = [[" peer", incoming.socket.remoteAddress ?? ""]];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
  return out;
}

/**
 * The shared run: the first caller's request, cancelled by `signal` rather than by that caller's connection
 * (the routes watch the request's signal when the env has no Node response, client-gone.ts).
 */
async function run(fetch: Fetch, request: Request, incoming: IncomingMessage, signal: AbortSignal) {
  const own = new Request(request.url, { method: request.method, headers: request.headers, signal });
  return sharedForm(await fetch(own, { incoming }));
}

/** `response` as a form every caller can be given: read once unless its builder already said what it holds. */
async function sharedForm(response: Response): Promise<SharedForm> {
  const known = knownForm(response);
  if (known?.headers !== undefined) {
    const { status, body, headers } = known;
    // A memoized answer (prepared-answer.ts) as it is: rendered once for every run that gives it.
    if (known.reusable && typeof body !== "string") return known as SharedForm;
    return { status, body: typeof body === "string" ? Buffer.from(body) : body, headers, reusable: true };
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers.vary = varyWithAcceptEncoding(headers.vary);
  const body = response.body === null ? null : new Uint8Array(await response.arrayBuffer());
  return { status: response.status, body, headers, reusable: true };
}

/** Never sent: its caller's connection is gone. `consul.api.http` counts it as 499 (nginx's "client closed request"). */
const CANCELLED: SharedForm = { status: 499, body: null, headers: {}, reusable: true };

function responseOf(form: SharedForm): Response {
  return withKnownForm(new Response(form.body, { status: form.status, headers: form.headers }), form);
}
