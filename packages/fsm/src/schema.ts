import { indexPolicy, indexRole, indexToken } from "../areas/acl.js";
import { linkConfigEntry } from "../areas/config-entries.js";
import { indexPreparedQuery } from "../areas/prepared-queries.js";
import { indexSession } from "./sessions.js";
import { joinKey, SEP, type Tables } from "./tables.js";

/** Rebuilds every secondary index from the primary tables (after a snapshot restore). */
export function rebuildDerived(t: Tables): void {
  t.kv.forEach((r, ck) => {
    if (r.session) t.kvBySession.set(joinKey(r.session, ck), true);
  });
  t.sessions.forEach((s) => void indexSession(t, s));
  t.services.forEach((s, key) => {
    t.servicesByName.set(joinKey(s.Namespace, s.Service, key.slice(0, key.indexOf(SEP)), s.ID), s);
  });
  t.nodes.forEach((n) => {
    if (n.ID) t.nodeIds.set(n.ID, n.Node);
  });
  t.configEntries.forEach((e) => {
    linkConfigEntry(t, e, true);
  });
  t.preparedQueries.forEach((q) => void indexPreparedQuery(t, q));
  t.aclTokens.forEach((tok) => void indexToken(t, tok));
  t.aclPolicies.forEach((p) => void indexPolicy(t, p));
  t.aclRoles.forEach((r) => void indexRole(t, r));
}
