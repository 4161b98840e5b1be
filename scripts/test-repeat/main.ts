// `npm run test:repeat -- N [vitest args]`: runs the test suite N times in a row, each run's results read from
// vitest's JSON reporter, then prints which tests failed in which run, so a flake (fails in some runs) can be
// told from a failure (fails in all). Exits 1 when any run had a failure, 2 on bad arguments.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../lib/agent.js";
import { failuresOf, failureTable, type RunOutcome } from "./results.js";

const [count, ...vitestArgs] = process.argv.slice(2);
const runs = Number(count);
if (!Number.isInteger(runs) || runs < 1) {
  console.error("usage: npm run test:repeat -- N [vitest args]   (N: how many runs, at least 1)");
  process.exit(2);
}

const reports = mkdtempSync(join(tmpdir(), "cairn-test-repeat-"));

/** One `vitest run`: dots on the terminal as it goes, the JSON report to `file`. */
function runOnce(file: string): Promise<number | string> {
  const vitest = join(REPO_ROOT, "node_modules", "vitest", "vitest.mjs");
  const args = [
    vitest,
    "run",
    "--reporter=dot",
    "--reporter=json",
    `--outputFile.json=${file}`,
    ...vitestArgs,
  ];
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: "inherit" });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")));
}

const outcomes: RunOutcome[] = [];
for (let i = 1; i <= runs; i++) {
  console.log(`\n── run ${i} of ${runs} ──`);
  const file = join(reports, `run-${i}.json`);
  const started = performance.now();
  const exit = await runOnce(file);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  if (!existsSync(file)) {
    outcomes.push({ broken: `vitest exited (${exit}) without a report` });
  } else {
    const failed = failuresOf(JSON.parse(readFileSync(file, "utf8")), REPO_ROOT);
    // A non-zero exit with every test passing (an unhandled error between tests) is a failure too.
    outcomes.push(
      failed.length === 0 && exit !== 0
        ? { broken: `vitest exited ${exit} with no failed test` }
        : { failed },
    );
  }
  const last = outcomes.at(-1)!;
  const what = "broken" in last ? last.broken : `${last.failed.length} failed`;
  console.log(`── run ${i}: ${what}, ${seconds} s ──`);
}

const bad = outcomes.filter((o) => "broken" in o || o.failed.length > 0).length;
console.log();
if (bad === 0) {
  rmSync(reports, { recursive: true, force: true });
  console.log(`All ${runs} runs passed.`);
} else {
  console.log(failureTable(outcomes));
  // The reports hold each failure's message and stack.
  console.log(`\n${bad} of ${runs} runs had failures; each run's JSON report is in ${reports}`);
}
process.exit(bad === 0 ? 0 : 1);
