import { obj, oneOf, optBool, optObj, optStr, type Raw, str } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { COMMAND_VERSION } from "../commands/version.js";
import { applyError } from "../store/errors.js";
import type { PreparedQueryCommand } from "./commands.js";
import type { PreparedQuery, PreparedQuerySpec } from "./records.js";
import {
  indexPreparedQuery,
  preparedQueriesChanged,
  preparedQueryStateError,
  removePreparedQuery,
  unindexPreparedQuery,
} from "./writes.js";

/**
 * Prepared queries: one table keyed by ID, plus two derived indexes (lower-cased names, and the queries each
 * session binds). Queries arrive validated and their templates compiled by the API; here they meet the checks
 * that depend on the state, as Consul's state store makes them: unique names (case-insensitive), one catch-all
 * template, no name that aliases another query's ID, an existing session.
 */

const v = COMMAND_VERSION;

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

export const preparedQueryHandlers: HandlerMap<PreparedQueryCommand> = {
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
        return applyError(`Cannot modify non-existent prepared query: '${q.ID}'`, "not-found");
      }
      const refusal = preparedQueryStateError(t, q, existing);
      if (refusal) return applyError(refusal);
      const stored: PreparedQuery = {
        ...q,
        CreateIndex: existing?.CreateIndex ?? tx.index,
        ModifyIndex: tx.index,
      };
      if (existing) unindexPreparedQuery(t, existing);
      t.preparedQueries.set(q.ID, stored);
      indexPreparedQuery(t, stored);
      preparedQueriesChanged(tx);
      return true;
    },
  },
  "prepared-query.delete": {
    decode: (r) => ({ v, type: "prepared-query.delete", id: str(r, "id") }),
    apply(tx, c) {
      return removePreparedQuery(tx, c.id)
        ? true
        : applyError(`Cannot modify non-existent prepared query: '${c.id}'`, "not-found");
    },
  },
};
