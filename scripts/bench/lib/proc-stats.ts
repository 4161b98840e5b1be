// What a running process costs, from /proc (Linux).

import { readFileSync } from "node:fs";

/** Resident set size of a process in bytes. */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match?.[1]) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/** CPU time (user + system) a process has used, in seconds (100 ticks a second). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the parenthesised command name, which may itself contain spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU time the whole machine spent busy, and time the hypervisor gave to others (steal), in seconds since
 * boot, from the first line of /proc/stat (user nice system idle iowait irq softirq steal, in 1/100 s).
 */
export function machineCpuSeconds(): { busy: number; steal: number } {
  const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0);
  return { busy: busy / 100, steal: (steal ?? 0) / 100 };
}
