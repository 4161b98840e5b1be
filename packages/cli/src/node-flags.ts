/**
 * The Node flags an agent runs with. Every way this repository starts one passes them: the `cairn` bin's
 * shebang, the root package's `cairn` and `dev` scripts, deploy/Dockerfile's entry point, deploy/cairn.service
 * and the scripts that spawn agents for tests and benchmarks (test-cluster/test/deploy.test.ts checks the
 * files that cannot import this).
 *
 * `--max-semi-space-size=32`: V8's young generation may grow to two 32 MiB halves instead of two 16 MiB
 * ones. A server answering thousands of requests a second keeps every in-flight request's objects alive
 * across a scavenge, and each scavenge copies them: at 256 writers the leader spent 10.8–12.6% of its main
 * thread collecting garbage, and 5.4–6.1% with this flag (bench/results/2026-11-28-young-generation.md).
 * V8 still grows the space only under allocation pressure and shrinks it when idle, so an agent with little
 * to do keeps its small footprint. Allowed in NODE_OPTIONS too.
 */
export const AGENT_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=32"];
