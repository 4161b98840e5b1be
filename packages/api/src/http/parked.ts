import { afterAnswer } from "./after-answer.js";

/**
 * A blocking query that has to wait answers its request at once with a placeholder carrying the promise of
 * the real answer, and the API's fetch hands on that promise in its place (`unpark`, applied in createApi).
 * Hono's part of the request then ends while the query waits: its Context, the middleware chain's and the
 * route's suspended frames are released, where thousands of held queries each kept them for minutes. What
 * stays is the continuation that builds the answer, which must not hold the Context for this to pay.
 */
const PARKED = Symbol("cairn.parked");

type Placeholder = Response & { [PARKED]?: Promise<Response> };

/** The placeholder standing for `answer` until the API's fetch returns (never sent itself). */
export function parked(answer: Promise<Response>): Response {
  const placeholder: Placeholder = new Response(null, { status: 202 });
  placeholder[PARKED] = answer;
  return placeholder;
}

/** The real answer behind a placeholder, or the answer itself. */
export function unpark(answer: Response | Promise<Response>): Response | Promise<Response> {
  return afterAnswer(answer, (response) => (response as Placeholder)[PARKED] ?? response);
}
