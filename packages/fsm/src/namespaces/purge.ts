import { purgeAuthMethods } from "../acl/auth-methods.js";
import { deletePolicy, deleteRole, deleteToken } from "../acl/writes.js";
import { deleteCheck, deleteService } from "../catalog/writes.js";
import { deleteConfigEntriesIn } from "../config/writes.js";
import { kvDelete } from "../kv/writes.js";
import { sessionInvalidate } from "../sessions/writes.js";
import { prefixEnd, SEP } from "../store/keys.js";
import type { Tx } from "../store/tx.js";

/** Removes every record that lives in `ns`. */
export function purgeNamespaceContents(tx: Tx, ns: string, now: number): void {
  const t = tx.tables;
  const kvPrefix = ns + SEP;
  const keys: string[] = [];
  t.kv.forRange(kvPrefix, prefixEnd(kvPrefix), false, (k) => void keys.push(k));
  for (const k of keys) kvDelete(tx, k);

  const sessions: string[] = [];
  t.sessions.forEach((s) => {
    if (s.Namespace === ns) sessions.push(s.ID);
  });
  for (const id of sessions) sessionInvalidate(tx, id, now);

  const services: Array<[string, string]> = [];
  t.services.forEach((s, key) => {
    if (s.Namespace === ns) services.push([key.slice(0, key.indexOf(SEP)), s.ID]);
  });
  for (const [node, id] of services) deleteService(tx, node, ns, id, now);
  const checks: Array<[string, string]> = [];
  t.checks.forEach((c) => {
    if (c.Namespace === ns) checks.push([c.Node, c.CheckID]);
  });
  for (const [node, id] of checks) deleteCheck(tx, node, ns, id, now);

  deleteConfigEntriesIn(tx, ns);

  const tokens: string[] = [];
  t.aclTokens.forEach((tok) => {
    if (tok.Namespace === ns) tokens.push(tok.AccessorID);
  });
  for (const a of tokens) deleteToken(tx, a);
  const policies: string[] = [];
  t.aclPolicies.forEach((p) => {
    if (p.Namespace === ns) policies.push(p.ID);
  });
  for (const id of policies) deletePolicy(tx, id);
  const roles: string[] = [];
  t.aclRoles.forEach((r) => {
    if (r.Namespace === ns) roles.push(r.ID);
  });
  for (const id of roles) deleteRole(tx, id);
  purgeAuthMethods(tx, ns);
}
