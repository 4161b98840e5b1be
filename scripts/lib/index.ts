// Process and cluster helpers shared by the benchmarks (scripts/bench), the agent's process tests and the
// chaos harness (test-cluster): one import for a test file.

export * from "./acl.js";
export * from "./agent.js";
export * from "./cluster.js";
export * from "./federation.js";
export * from "./http.js";
export * from "./leader.js";
export * from "./ports.js";
export * from "./processes.js";
export * from "./scratch.js";
export * from "./wait.js";
