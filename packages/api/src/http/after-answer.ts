/** Calls `then` with the answer now if there is one, else once it arrives. */
export function afterAnswer<T>(
  answer: Response | Promise<Response>,
  then: (response: Response) => T | Promise<T>,
): T | Promise<T> {
  // A thenable test, not instanceof: @hono/node-server puts its own Response class in place of the global one.
  return isPromise(answer) ? answer.then(then) : then(answer);
}

function isPromise(answer: Response | Promise<Response>): answer is Promise<Response> {
  return typeof (answer as Partial<Promise<Response>>).then === "function";
}
