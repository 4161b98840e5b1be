import type { KvRecord } from "./records.js";

declare module "../store/tables.js" {
  interface TableRows {
    /** ns \0 key -> record */
    kv: KvRecord;
    /** ns \0 key -> index of the delete */
    tombstones: number;
    /** ns \0 key -> ms before which acquires are refused */
    lockDelays: number;
    /** session \0 ns \0 key: the keys each session holds (derived) */
    kvBySession: true;
  }
  interface TableIndexes {
    kvs: number;
  }
}
