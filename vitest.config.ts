import { defineConfig } from "vitest/config";

// Tests run against every package's TypeScript sources (the "source" export condition), never a stale dist/.
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "test-cluster/test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for a condition, and a page or agent on a loaded machine takes more than the default
    // one second to get there; a poll still ends as soon as its condition holds.
    expect: { poll: { timeout: 15_000 } },
    pool: "forks",
    // Vitest's default on a 2-core machine is one worker, but most of this suite waits (elections, gossip
    // rounds, child processes starting): it uses under a third of two cores. Four workers keep the cores busy;
    // CAIRN_TEST_WORKERS overrides (1 runs the files one after another).
    maxWorkers: Number(process.env.CAIRN_TEST_WORKERS ?? 4),
  },
});
