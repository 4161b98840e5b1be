// What one vitest run's JSON report (`--reporter=json`) says failed, and the table of failures across runs.

import { markdownTable } from "../bench/lib/table.js";

/** The part of vitest's (Jest-compatible) JSON report read here. */
interface JsonReport {
  testResults?: {
    name: string;
    status?: string;
    message?: string;
    assertionResults?: { fullName?: string; title: string; status: string }[];
  }[];
}

/** One run: the failed tests as "file › test", or why the run has no report at all. */
export type RunOutcome = { failed: string[] } | { broken: string };

/**
 * The failures in one report. A file that failed without a failed test (a hook, an import, a crash) counts as
 * one failure named after the file, with the first line of its message.
 */
export function failuresOf(report: JsonReport, root: string): string[] {
  const failed: string[] = [];
  for (const file of report.testResults ?? []) {
    const name = file.name.startsWith(root) ? file.name.slice(root.length).replace(/^\//, "") : file.name;
    const tests = (file.assertionResults ?? []).filter((t) => t.status === "failed");
    for (const t of tests) failed.push(`${name} › ${t.fullName ?? t.title}`);
    if (tests.length === 0 && file.status === "failed") {
      const reason = (file.message ?? "").split("\n").find((l) => l.trim() !== "") ?? "failed";
      failed.push(`${name} (file: ${reason.trim().slice(0, 120)})`);
    }
  }
  return failed;
}

/**
 * Rows: every test that failed in some run, marked ✗ in the runs it failed in; a flake fails in some runs
 * only. Runs without a report get a row of their own.
 */
export function failureTable(outcomes: readonly RunOutcome[]): string {
  const header = ["test", ...outcomes.map((_, i) => `run ${i + 1}`), "verdict"];
  const names = new Set<string>();
  for (const o of outcomes) if ("failed" in o) for (const n of o.failed) names.add(n);
  const reported = outcomes.filter((o) => "failed" in o).length;
  const rows = [...names].sort().map((name) => {
    const marks = outcomes.map((o) => ("failed" in o ? (o.failed.includes(name) ? "✗" : "·") : "?"));
    const count = marks.filter((m) => m === "✗").length;
    return [name, ...marks, count === reported ? "fails every run" : `flaky (${count}/${reported})`];
  });
  if (outcomes.some((o) => "broken" in o))
    rows.push([
      "(no report)",
      ...outcomes.map((o) => ("broken" in o ? "✗" : "·")),
      outcomes.flatMap((o) => ("broken" in o ? [o.broken] : []))[0] ?? "",
    ]);
  return markdownTable(header, rows);
}
