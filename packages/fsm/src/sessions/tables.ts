import type { Session } from "./records.js";

declare module "../store/tables.js" {
  interface TableRows {
    /** session ID -> session */
    sessions: Session;
    /** node \0 session ID (derived) */
    sessionsByNode: true;
    /** node \0 ns \0 check ID \0 session ID (derived) */
    sessionsByCheck: true;
  }
  interface TableIndexes {
    sessions: number;
  }
}

/** Blocking-query channel of the whole table. */
export const sessionsChannel = "sessions";
