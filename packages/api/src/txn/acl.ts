import type { TxnError, TxnOp } from "@cairn/fsm";
import type { AclResourceType, Authorizer } from "../authorizer.js";
import { isWriteOp } from "./verbs.js";

/**
 * The operations the token may not perform. As in Consul, each becomes that operation's error and the
 * whole transaction is rolled back (409), rather than the request being refused outright. Operations
 * that are undefined (they have a problem of their own) are skipped.
 */
export function deniedOps(
  authorizer: Authorizer,
  token: string,
  ns: string,
  ops: readonly (TxnOp | undefined)[],
): TxnError[] {
  const denied: TxnError[] = [];
  ops.forEach((op, OpIndex) => {
    if (op === undefined) return;
    const [type, name, opNs] = target(op, ns);
    const access = isWriteOp(op) ? "write" : "read";
    if (authorizer.authorize(token, opNs, type, name, access) !== "allow") {
      denied.push({ OpIndex, What: "Permission denied" });
    }
  });
  return denied;
}

function target(op: TxnOp, ns: string): [AclResourceType, string, string] {
  if ("KV" in op) return ["key", op.KV.Key, op.KV.Namespace ?? ns];
  if ("Node" in op) return ["node", op.Node.Node.Node, ns];
  if ("Service" in op) return ["service", op.Service.Service.Service, ns];
  return ["node", op.Check.Check.Node, ns];
}
