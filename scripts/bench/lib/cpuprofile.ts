// Where the time goes in a V8 .cpuprofile (from node --cpu-prof): self time per function and inclusive
// time per package/file, as markdown tables.
//
//   node --import tsx scripts/bench/lib/cpuprofile.ts <file.cpuprofile> [top=25]

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
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

export function summarize(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfMs = new Map<number, number>();
  let totalMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
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
  const [file, top = "25"] = process.argv.slice(2);
  if (!file) {
    console.error("usage: cpuprofile.ts <file.cpuprofile> [top]");
    process.exit(2);
  }
  console.log(render(summarize(JSON.parse(readFileSync(file, "utf8")) as CpuProfile), Number(top)));
}
