export { applyConfChange, type ConfEntry, decodeConfEntry, encodeConfEntry } from "./core/conf.js";
export { RaftCore } from "./core/raft.js";
export type * from "./core/types.js";
