import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "cairn-dev-";
/** `cairn-dev-<pid>-<random>`: the directory of the dev agent with that process ID. */
const NAME = /^cairn-dev-(\d+)-/;

/**
 * A dev agent's data directory: temporary, named after this process, and removed at a clean exit. One killed
 * with SIGKILL cannot remove its own, so every dev agent first removes those whose process is gone.
 */
export function makeDevDir(root = tmpdir()): string {
  sweepDevDirs(root);
  return mkdtempSync(join(root, `${PREFIX}${process.pid}-`));
}

/** Removes the dev directories under `root` whose agent process no longer runs. */
function sweepDevDirs(root: string): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = NAME.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || processAlive(Number(pid))) continue;
    try {
      rmSync(join(root, name), { recursive: true, force: true });
    } catch {
      // Another user's, or being removed by another agent: not ours to insist on.
    }
  }
}

/**
 * Whether a process with this ID exists (one of another user counts: EPERM still means it runs). A dev agent in
 * another PID namespace that shares this temporary folder would look gone; dev agents are not run that way.
 */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
