import { joinKey, prefixEnd, SEP } from "../store/keys.js";
import type { Tables } from "../store/tables.js";
import type { Tx } from "../store/tx.js";
import { isQueryTemplate, type PreparedQuery, type PreparedQuerySpec } from "./records.js";
import { preparedQueriesChannel, QUERY_ID } from "./tables.js";

/** Whether a query occupies the name index: every named query, and the catch-all template under "". */
const indexedName = (q: PreparedQuery | PreparedQuerySpec): string | undefined =>
  q.Name !== "" || isQueryTemplate(q) ? q.Name.toLowerCase() : undefined;

export function indexPreparedQuery(t: Tables, q: PreparedQuery): void {
  const name = indexedName(q);
  if (name !== undefined) t.preparedQueryNames.set(name, q.ID);
  if (q.Session !== "") t.preparedQueriesBySession.set(joinKey(q.Session, q.ID), true);
}

export function unindexPreparedQuery(t: Tables, q: PreparedQuery): void {
  const name = indexedName(q);
  if (name !== undefined && t.preparedQueryNames.get(name) === q.ID) t.preparedQueryNames.delete(name);
  if (q.Session !== "") t.preparedQueriesBySession.delete(joinKey(q.Session, q.ID));
}

export function preparedQueriesChanged(tx: Tx): void {
  tx.tables.indexes.preparedQueries = tx.index;
  tx.touch(preparedQueriesChannel);
}

export function removePreparedQuery(tx: Tx, id: string): boolean {
  const t = tx.tables;
  const existing = t.preparedQueries.get(id);
  if (!existing) return false;
  unindexPreparedQuery(t, existing);
  t.preparedQueries.delete(id);
  preparedQueriesChanged(tx);
  return true;
}

/** The session-invalidation cascade: queries bound to the session go with it. */
export function deleteSessionQueries(tx: Tx, sessionId: string): void {
  const prefix = sessionId + SEP;
  const ids: string[] = [];
  tx.tables.preparedQueriesBySession.forRange(prefix, prefixEnd(prefix), false, (k) => {
    ids.push(k.slice(prefix.length));
  });
  for (const id of ids) removePreparedQuery(tx, id);
}

/** Consul's one-line refusal for a query the state does not admit, or undefined. */
export function preparedQueryStateError(
  t: Tables,
  q: PreparedQuerySpec,
  existing: PreparedQuery | undefined,
): string | undefined {
  const name = indexedName(q);
  if (name !== undefined) {
    const other = t.preparedQueryNames.get(name);
    if (other !== undefined && other !== q.ID) {
      return q.Name === ""
        ? "a query template with an empty name already exists"
        : `name '${q.Name}' aliases an existing query name`;
    }
  }
  if (QUERY_ID.test(q.Name) && t.preparedQueries.has(q.Name) && existing?.ID !== q.Name) {
    return `name '${q.Name}' aliases an existing query ID`;
  }
  if (q.Session !== "" && !t.sessions.has(q.Session)) return `invalid session "${q.Session}"`;
  return undefined;
}
