import { badRequest } from "../http/errors.js";
import { printable } from "../http/query.js";

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * A session named by a request: only its presence is checked. Any other text is looked up like an ID and,
 * found nowhere, gets Consul's not-found answer (renew 404, info [], release false, acquire 500 `invalid
 * session`), which clients such as python-consul's test suite rely on.
 */
export function requireSession(id: string): string {
  if (id === "") throw badRequest("Missing session");
  return id;
}

/** Destroy: the spec has a malformed UUID refused, so it is a 400 before it reaches the cluster. */
export function requireSessionId(id: string): string {
  requireSession(id);
  if (!UUID.test(id)) throw badRequest(`Invalid session ID "${printable(id)}": must be a UUID`);
  return id;
}
