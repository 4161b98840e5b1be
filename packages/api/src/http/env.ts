import type { Logger } from "pino";
import type { Query } from "./query.js";

/** Per-request values the shared middleware fills in for the routes. */
export interface ApiEnv {
  Variables: {
    query: Query;
    /** ACL token secret; empty for the anonymous token. Never logged. */
    token: string;
    namespace: string;
    log: Logger;
  };
}
