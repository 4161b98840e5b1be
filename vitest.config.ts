import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Files that take minutes whatever else runs: the chaos mixes run on a fixed clock (140 s and more) and the
// simulator tests keep a core busy for as long. On a fresh clone Vitest has no timings and starts the larger
// files first, so these small files started last and the suite waited minutes for them alone; started first,
// the rest of the suite runs beside them.
const startFirst = [
  /test-cluster\/test\/(wan-)?chaos\.test\.ts$/,
  /packages\/raft\/test\/sim\/[^/]+\.test\.ts$/,
];

class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = startFirst.findIndex((pattern) => pattern.test(f.moduleId));
      return i < 0 ? startFirst.length : i;
    };
    // Array sort is stable: within a rank, Vitest's own order (timings when it has them, else size) holds.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

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
    sequence: { sequencer: LongFirstSequencer },
  },
});
