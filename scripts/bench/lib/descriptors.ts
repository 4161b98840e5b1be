// The open-file limit, which caps how many connections one process (a server, a load generator) can hold.
import { readFileSync } from "node:fs";

/** This process's soft limit on open files, from /proc (Node has no getrlimit); children inherit it. */
export function descriptorLimit(): number {
  const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync("/proc/self/limits", "utf8"));
  if (!line) throw new Error("cannot read the open-file limit from /proc/self/limits");
  return line[1] === "unlimited" ? Number.POSITIVE_INFINITY : Number(line[1]);
}
