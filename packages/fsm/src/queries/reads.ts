import { channelRead, type Read, type ViewScope } from "../store/read.js";
import type { Tables } from "../store/tables.js";
import { isQueryTemplate, type PreparedQuery } from "./records.js";
import { preparedQueriesChannel, QUERY_ID } from "./tables.js";

/**
 * Where a name or ID leads, as Consul's PreparedQueryResolve looks: an ID (templates only by name), then an
 * exact name, then the template with the longest matching name prefix (the catch-all, named "", last).
 * Names compare case-insensitively.
 */
export function resolvePreparedQuery(
  t: Tables,
  idOrName: string,
): PreparedQuery | "template-by-id" | undefined {
  if (idOrName === "") return undefined;
  if (QUERY_ID.test(idOrName)) {
    const byId = t.preparedQueries.get(idOrName);
    if (byId) return isQueryTemplate(byId) ? "template-by-id" : byId;
  }
  const lower = idOrName.toLowerCase();
  const exact = t.preparedQueryNames.get(lower);
  if (exact !== undefined) return t.preparedQueries.get(exact);
  for (let end = lower.length - 1; end >= 0; end--) {
    const id = t.preparedQueryNames.get(lower.slice(0, end));
    const q = id === undefined ? undefined : t.preparedQueries.get(id);
    if (q && isQueryTemplate(q)) return q;
  }
  return undefined;
}

/** One prepared query by ID; the index is the table's, as Consul reports it. */
export function preparedQuery(v: ViewScope, id: string): Read<PreparedQuery | undefined> {
  const t = v.t;
  return channelRead(v, t.preparedQueries.get(id), t.indexes.preparedQueries, preparedQueriesChannel);
}

/** Every prepared query, ordered by ID. */
export function preparedQueries(v: ViewScope): Read<PreparedQuery[]> {
  const t = v.t;
  return channelRead(v, [...t.preparedQueries.values()], t.indexes.preparedQueries, preparedQueriesChannel);
}

/**
 * The query an execute or explain names (ID, exact name, or longest template prefix; see
 * resolvePreparedQuery), unrendered; "template-by-id" when an ID names a template.
 */
export function preparedQueryResolve(
  v: ViewScope,
  idOrName: string,
): Read<PreparedQuery | "template-by-id" | undefined> {
  const t = v.t;
  return channelRead(v, resolvePreparedQuery(t, idOrName), t.indexes.preparedQueries, preparedQueriesChannel);
}
