import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { afterAnswer } from "./after-answer.js";
import { gzipped } from "./gzip.js";
import { knownForm } from "./known-form.js";
import { writeWire } from "./wire.js";

type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

/**
 * The HTTP edge: what every answer of the agent's HTTP API goes through last, once, outermost, so that what
 * servers and client agents pass each other internally stays plain. It compresses (gzip.ts), and writes an
 * answer that goes out as it is and whose every header is known straight to the connection (wire.ts),
 * telling @hono/node-server that it was sent.
 *
 * `RESPONSE_ALREADY_SENT` is a WHATWG Response made when its module loads, before @hono/node-server puts its
 * own Response class in place (at the first `serve`); one of those would be written again.
 */
export function httpEdge(fetch: Fetch): Fetch {
  // Not an async function: one suspended for every held blocking query was a frame, a promise and a register
  // file each, for as long as the query waited. The answer is looked at once it exists.
  return (request, env) => afterAnswer(fetch(request, env), (response) => sent(request, env, response));
}

/** The answer as it goes out: compressed, written here, or left to @hono/node-server to write. */
function sent(request: Request, env: unknown, response: Response): Response | Promise<Response> {
  const out = gzipped(request, env, response);
  if (out !== response) return out;
  const form = knownForm(response);
  return form !== undefined && writeWire(env, form) ? RESPONSE_ALREADY_SENT : response;
}
