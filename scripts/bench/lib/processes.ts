// Transitional re-exports for scripts/bench/acl.ts, written elsewhere against the bench's former process
// helpers; new code imports scripts/lib/ directly. Delete once acl.ts does too.

export { freePorts } from "../../lib/ports.js";
export { stop, stopAll } from "../../lib/processes.js";
export { waitFor } from "../../lib/wait.js";
