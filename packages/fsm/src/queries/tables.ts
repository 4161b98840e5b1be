import type { PreparedQuery } from "./records.js";

declare module "../store/tables.js" {
  interface TableRows {
    /** query ID -> prepared query */
    preparedQueries: PreparedQuery;
    /** lower-cased query name -> query ID (named queries, and the catch-all template under ""; derived) */
    preparedQueryNames: string;
    /** session \0 query ID: the queries each session binds (derived) */
    preparedQueriesBySession: true;
  }
  interface TableIndexes {
    preparedQueries: number;
  }
}

/** Blocking-query channel of the whole table. */
export const preparedQueriesChannel = "pq";

/** A query ID as Consul generates them. */
export const QUERY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
