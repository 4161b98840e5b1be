// Where the time goes in a V8 .cpuprofile (from node --cpu-prof): self time per function and inclusive
// time per package/file, as markdown tables, over the whole profile or a window of it; and a timeline of
// busy (non-idle) time per 250 ms to find the window of interest.
//
//   node --import tsx scripts/bench/lib/cpuprofile.ts <file.cpuprofile> [--top 25] [--from S --to S] [--timeline]

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { markdownTable } from "./table.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Shortens a file URL to the part that names it: a package path or a node: builtin. */
function shortUrl(url: string): string {
  if (url === "") return "(native)";
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) return url.slice(nm + "node_modules/".length);
  const pkgs = url.indexOf("/packages/");
  if (pkgs >= 0) return url.slice(pkgs + 1);
  return url.replace(/^file:\/\//, "");
}

export interface ProfileSummary {
  totalMs: number;
  /** [function @ file:line, self ms] by descending self time. */
  selfTime: Array<[string, number]>;
  /** [file, inclusive ms]: samples with that file anywhere on the stack. */
  fileTime: Array<[string, number]>;
}

/** Seconds from the start of the profile; samples outside [from, to] are left out. */
export interface ProfileWindow {
  from: number;
  to: number;
}

export function summarize(profile: CpuProfile, window?: ProfileWindow): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfMs = new Map<number, number>();
  let totalMs = 0;
  let at = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    at += ms;
    if (window && (at < window.from * 1000 || at > window.to * 1000)) return;
    totalMs += ms;
    selfMs.set(id, (selfMs.get(id) ?? 0) + ms);
  });

  const self = new Map<string, number>();
  const files = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const node = byId.get(id);
    if (!node) continue;
    const f = node.callFrame;
    const label = `${f.functionName || "(anonymous)"} @ ${shortUrl(f.url)}:${f.lineNumber + 1}`;
    self.set(label, (self.get(label) ?? 0) + ms);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const url = byId.get(cur)?.callFrame.url;
      if (url) seen.add(shortUrl(url));
    }
    for (const file of seen) files.set(file, (files.get(file) ?? 0) + ms);
  }
  const desc = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return { totalMs, selfTime: desc(self), fileTime: desc(files) };
}

/** Busy (not idle) milliseconds per 250 ms slice: [slice start in seconds, busy ms]. */
export function timeline(profile: CpuProfile): Array<[number, number]> {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  const busy = new Map<number, number>();
  let at = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    at += ms;
    if (idle.has(id)) return;
    const slice = Math.floor(at / 250);
    busy.set(slice, (busy.get(slice) ?? 0) + ms);
  });
  return [...busy].sort((a, b) => a[0] - b[0]).map(([slice, ms]) => [slice / 4, ms]);
}

function render(summary: ProfileSummary, top: number): string {
  const pct = (ms: number) => `${((100 * ms) / summary.totalMs).toFixed(1)}%`;
  return [
    `total sampled: ${(summary.totalMs / 1000).toFixed(1)} s`,
    "",
    markdownTable(
      ["self %", "self ms", "function"],
      summary.selfTime.slice(0, top).map(([f, ms]) => [pct(ms), ms.toFixed(0), f]),
    ),
    "",
    markdownTable(
      ["inclusive %", "file"],
      summary.fileTime.slice(0, top).map(([f, ms]) => [pct(ms), f]),
    ),
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      top: { type: "string", default: "25" },
      from: { type: "string" },
      to: { type: "string" },
      timeline: { type: "boolean", default: false },
    },
  });
  const file = positionals[0];
  if (!file) {
    console.error("usage: cpuprofile.ts <file.cpuprofile> [--top 25] [--from S --to S] [--timeline]");
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  if (values.timeline) {
    console.log(
      markdownTable(
        ["from s", "busy ms"],
        timeline(profile).map(([s, ms]) => [s.toFixed(2), ms.toFixed(0)]),
      ),
    );
  } else {
    const window =
      values.from !== undefined || values.to !== undefined
        ? { from: Number(values.from ?? 0), to: Number(values.to ?? Number.POSITIVE_INFINITY) }
        : undefined;
    console.log(render(summarize(profile, window), Number(values.top)));
  }
}
