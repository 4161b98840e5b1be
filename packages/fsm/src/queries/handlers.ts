import { obj, oneOf, optBool, optObj, optStr, type Raw, str } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { applyError } from "../commands/results.js";
import { COMMAND_VERSION } from "../commands/types.js";
import { joinKey, prefixEnd, SEP, type Tables } from "../state/tables.js";
import type { Tx } from "../state/tx.js";

/**
 * Prepared queries: one table keyed by ID, plus two derived indexes (lower-cased names, and the queries each
 * session binds). Queries arrive validated and their templates compiled by the API; here they meet the checks
 * that depend on the state, as Consul's state store makes them: unique names (case-insensitive), one catch-all
 * template, no name that aliases another query's ID, an existing session.
 */

const v = COMMAND_VERSION;

export interface PreparedQueryTemplate {
  readonly Type: string;
  readonly Regexp: string;
  readonly RemoveEmptyTags: boolean;
}

/** A stored prepared query. `Service` is the API's validated ServiceQuery object. */
export interface PreparedQuery {
  readonly ID: string;
  readonly Name: string;
  readonly Session: string;
  readonly Token: string;
  readonly Template: PreparedQueryTemplate;
  readonly Service: Readonly<Record<string, unknown>>;
  readonly DNS: { readonly TTL: string };
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

export type PreparedQuerySpec = Omit<PreparedQuery, "CreateIndex" | "ModifyIndex">;

/** Create (the ID is new, chosen by the leader) or update (the ID must exist) one query. */
export interface PreparedQuerySetCommand {
  readonly v: typeof COMMAND_VERSION;
  readonly type: "prepared-query.set";
  readonly op: "create" | "update";
  readonly query: PreparedQuerySpec;
}

export interface PreparedQueryDeleteCommand {
  readonly v: typeof COMMAND_VERSION;
  readonly type: "prepared-query.delete";
  readonly id: string;
}

/** Blocking-query channel of the whole table. */
export const preparedQueriesChannel = "pq";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isQueryTemplate = (q: PreparedQuery | PreparedQuerySpec): boolean => q.Template.Type !== "";

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
  if (UUID.test(idOrName)) {
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

/** Whether a query occupies the name index: every named query, and the catch-all template under "". */
const indexedName = (q: PreparedQuery | PreparedQuerySpec): string | undefined =>
  q.Name !== "" || isQueryTemplate(q) ? q.Name.toLowerCase() : undefined;

export function indexPreparedQuery(t: Tables, q: PreparedQuery): void {
  const name = indexedName(q);
  if (name !== undefined) t.preparedQueryNames.set(name, q.ID);
  if (q.Session !== "") t.preparedQueriesBySession.set(joinKey(q.Session, q.ID), true);
}

function unindex(t: Tables, q: PreparedQuery): void {
  const name = indexedName(q);
  if (name !== undefined && t.preparedQueryNames.get(name) === q.ID) t.preparedQueryNames.delete(name);
  if (q.Session !== "") t.preparedQueriesBySession.delete(joinKey(q.Session, q.ID));
}

function changed(tx: Tx): void {
  tx.tables.indexes.preparedQueries = tx.index;
  tx.touch(preparedQueriesChannel);
}

function remove(tx: Tx, id: string): boolean {
  const t = tx.tables;
  const existing = t.preparedQueries.get(id);
  if (!existing) return false;
  unindex(t, existing);
  t.preparedQueries.delete(id);
  changed(tx);
  return true;
}

/** The session-invalidation cascade: queries bound to the session go with it. */
export function deleteSessionQueries(tx: Tx, sessionId: string): void {
  const prefix = sessionId + SEP;
  const ids: string[] = [];
  tx.tables.preparedQueriesBySession.forRange(prefix, prefixEnd(prefix), false, (k) => {
    ids.push(k.slice(prefix.length));
  });
  for (const id of ids) remove(tx, id);
}

/** Consul's one-line refusal for a query the state does not admit, or undefined. */
function stateError(
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
  if (UUID.test(q.Name) && t.preparedQueries.has(q.Name) && existing?.ID !== q.Name) {
    return `name '${q.Name}' aliases an existing query ID`;
  }
  if (q.Session !== "" && !t.sessions.has(q.Session)) return `invalid session "${q.Session}"`;
  return undefined;
}

function decodeSpec(r: Raw): PreparedQuerySpec {
  const template = optObj(r, "Template");
  const dns = optObj(r, "DNS");
  return {
    ID: str(r, "ID"),
    Name: optStr(r, "Name") ?? "",
    Session: optStr(r, "Session") ?? "",
    Token: optStr(r, "Token") ?? "",
    Template: {
      Type: (template && optStr(template, "Type")) ?? "",
      Regexp: (template && optStr(template, "Regexp")) ?? "",
      RemoveEmptyTags: (template && optBool(template, "RemoveEmptyTags")) ?? false,
    },
    Service: obj(r, "Service"),
    DNS: { TTL: (dns && optStr(dns, "TTL")) ?? "" },
  };
}

export const preparedQueryHandlers: HandlerMap<"prepared-query.set" | "prepared-query.delete"> = {
  "prepared-query.set": {
    decode: (r) => ({
      v,
      type: "prepared-query.set",
      op: oneOf(r, "op", ["create", "update"]),
      query: decodeSpec(obj(r, "query")),
    }),
    apply(tx, c) {
      const t = tx.tables;
      const q = c.query;
      if (q.ID === "") return applyError("Missing query ID");
      const existing = t.preparedQueries.get(q.ID);
      if (c.op === "create" && existing) return applyError(`Query ID "${q.ID}" is already in use`);
      if (c.op === "update" && !existing) {
        return applyError(`Cannot modify non-existent prepared query: '${q.ID}'`, 404);
      }
      const refusal = stateError(t, q, existing);
      if (refusal) return applyError(refusal);
      const stored: PreparedQuery = {
        ...q,
        CreateIndex: existing?.CreateIndex ?? tx.index,
        ModifyIndex: tx.index,
      };
      if (existing) unindex(t, existing);
      t.preparedQueries.set(q.ID, stored);
      indexPreparedQuery(t, stored);
      changed(tx);
      return true;
    },
  },
  "prepared-query.delete": {
    decode: (r) => ({ v, type: "prepared-query.delete", id: str(r, "id") }),
    apply(tx, c) {
      return remove(tx, c.id)
        ? true
        : applyError(`Cannot modify non-existent prepared query: '${c.id}'`, 404);
    },
  },
};
