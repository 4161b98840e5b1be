import type { Namespace } from "./records.js";

declare module "../store/tables.js" {
  interface TableRows {
    /** name -> namespace (the built-in default only once written) */
    namespaces: Namespace;
  }
  interface TableIndexes {
    namespaces: number;
  }
}

/** Blocking-query channel of the whole table. */
export const namespacesChannel = "namespaces";
