import { badRequest } from "../http/errors.js";
import { printable } from "../http/query.js";

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Session IDs are UUIDs; anything else is a 400 before it reaches the cluster. */
export function requireSessionId(id: string): string {
  if (id === "") throw badRequest("Missing session");
  if (!UUID.test(id)) throw badRequest(`Invalid session ID "${printable(id)}": must be a UUID`);
  return id;
}
