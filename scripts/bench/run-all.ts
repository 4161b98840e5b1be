// Runs every benchmark in scripts/bench (lowest layer first) one after another and writes their output,
// under a description of the machine, to bench/results/<date>.md. `npm run bench`.
//
//   node --import tsx scripts/bench/run-all.ts [--only raft,http] [--timeout-min 30] [--list]

import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { useBuiltAgents } from "./lib/built.js";
import { describeMachine } from "./lib/machine.js";
import { markdownTable } from "./lib/table.js";

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    "timeout-min": { type: "string", default: "30" },
    list: { type: "boolean", default: false },
  },
});

const BENCH_DIR = fileURLToPath(new URL(".", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Known suites bottom-up; any other benchmark file runs after them, alphabetically. */
const ORDER = ["raft", "fsm", "http", "catalog", "client"];
/** Suites that run for a set time longer than the default limit: their own minutes plus start and stop. */
// soak: 30 minutes, then a fresh cluster warmed for one and four legs of two. http: three rounds of 32 cells of
// 10 s each (four client counts) come to about 24 minutes.
const MINIMUM_MINUTES: Record<string, number> = { soak: 50, http: 40 };

/**
 * The benchmarks: every scripts/bench/*.ts except this runner, modules another benchmark imports (helpers
 * such as a forked server), and scratch files (a name containing "tmp").
 */
function suites(): string[] {
  const files = readdirSync(BENCH_DIR).filter((f) => f.endsWith(".ts") && f !== "run-all.ts");
  const sources = files.map((f) => readFileSync(join(BENCH_DIR, f), "utf8"));
  const imported = (name: string) =>
    sources.some((src) => src.includes(`"./${name}.js"`) || src.includes(`"./${name}.ts"`));
  const names = files.map((f) => f.slice(0, -3)).filter((n) => !n.includes("tmp") && !imported(n));
  const rank = (n: string) => (ORDER.includes(n) ? ORDER.indexOf(n) : ORDER.length);
  const selected = values.only ? new Set(values.only.split(",")) : undefined;
  return names
    .filter((n) => !selected || selected.has(n))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

interface SuiteRun {
  name: string;
  status: string;
  seconds: number;
  output: string;
}

/** Runs one suite; its progress (stderr) streams through, its report (stdout) is kept. */
function runSuite(name: string): Promise<SuiteRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", join(BENCH_DIR, `${name}.ts`)], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    process.stdout.write(chunk);
  });
  const timeoutMs = Math.max(Number(values["timeout-min"]), MINIMUM_MINUTES[name] ?? 0) * 60_000;
  // SIGINT lets a suite kill the processes it started before it exits.
  const timer = setTimeout(() => child.kill("SIGINT"), timeoutMs);
  return new Promise((resolve) => {
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      const status = code === 0 ? "ok" : signal ? `killed (${signal})` : `failed (exit ${code})`;
      resolve({ name, status, seconds, output: output.trim() });
    });
  });
}

/** Suites that print tables are markdown already; plain lines are fenced so they keep their breaks. */
function asMarkdown(output: string): string {
  if (output === "") return "(no output)";
  return /^\|/m.test(output) ? output : `\`\`\`text\n${output}\n\`\`\``;
}

async function main(): Promise<void> {
  if (values.list) {
    console.log(suites().join("\n"));
    return;
  }
  // Once for every suite: each inherits CAIRN_AGENT_BUILT and runs the compiled agent.
  useBuiltAgents();
  const started = new Date();
  const machine = describeMachine(tmpdir());
  const runs: SuiteRun[] = [];
  for (const name of suites()) {
    console.error(`\n=== bench: ${name} ===`);
    runs.push(await runSuite(name));
  }

  const stamp = started.toISOString().slice(0, 16).replace("T", "-").replace(":", "");
  const sections = [
    `# Cairn benchmarks, ${started.toISOString().slice(0, 16).replace("T", " ")} UTC`,
    "## Machine",
    markdownTable(
      ["", ""],
      machine.map(([k, v]) => [k, v]),
    ),
    "## Suites",
    markdownTable(
      ["suite", "status", "seconds"],
      runs.map((r) => [r.name, r.status, r.seconds.toFixed(0)]),
    ),
    ...runs.map((r) => `## ${r.name}\n\n${asMarkdown(r.output)}`),
  ];
  const outDir = join(REPO_ROOT, "bench", "results");
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `${stamp}.md`);
  writeFileSync(file, `${sections.join("\n\n")}\n`);
  console.error(`\nwrote ${file}`);
  if (runs.some((r) => r.status !== "ok")) process.exitCode = 1;
}

await main();
