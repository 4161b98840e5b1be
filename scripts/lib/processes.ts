// Child processes started by harnesses, benchmarks and tests: output captured (a tail in memory, optionally
// a log file), and a registry that kills everything still running by PID when the parent exits or is
// interrupted, also on failure.

import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";

export interface Spawned {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves with the exit code (or signal name) once the process has exited and all its output is logged. */
  readonly exited: Promise<number | string>;
  /** Last lines of combined stdout/stderr, for error messages. */
  tail(): string;
}

export interface SpawnOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Output is appended here as well. */
  readonly logFile?: string;
}

const TAIL_BYTES = 4000;
const live = new Set<Spawned>();
let hooksInstalled = false;

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.once("exit", killAllSync);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      killAllSync();
      process.exit(130);
    });
  }
}

function killAllSync(): void {
  for (const p of live) signal(p, "SIGKILL");
  live.clear();
}

/** Starts `command args`, registered so that `stopAll` and the parent's exit kill it. */
export function spawnTracked(
  name: string,
  command: string,
  args: readonly string[],
  options: SpawnOptions = {},
): Spawned {
  installExitHooks();
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  let tail = "";
  const log = options.logFile ? createWriteStream(options.logFile, { flags: "a" }) : undefined;
  const onData = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-TAIL_BYTES);
    log?.write(chunk);
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const spawned: Spawned = {
    name,
    child,
    pid: child.pid,
    // "close", not "exit": the last output can arrive after the exit, and a test that reads the log once the
    // process is gone must find all of it (the log file too, so it waits for the file's own flush).
    exited: new Promise((resolve) => {
      child.once("close", (code, signal) => {
        live.delete(spawned);
        const outcome = code ?? signal ?? "unknown";
        if (log === undefined) resolve(outcome);
        else log.end(() => resolve(outcome));
      });
    }),
    tail: () => tail,
  };
  live.add(spawned);
  return spawned;
}

export function isRunning(p: Spawned): boolean {
  return p.child.exitCode === null && p.child.signalCode === null;
}

/** Sends `sig` by PID; false when the process is already gone. */
export function signal(p: Spawned, sig: NodeJS.Signals): boolean {
  if (!isRunning(p)) return false;
  try {
    process.kill(p.pid, sig);
    return true;
  } catch {
    return false;
  }
}

/** kill -9, and wait for the exit. */
export async function kill(p: Spawned): Promise<void> {
  signal(p, "SIGKILL");
  await p.exited;
}

/** SIGSTOP: the process keeps its sockets but answers nothing until `resume`. */
export function pause(p: Spawned): void {
  signal(p, "SIGSTOP");
}

export function resume(p: Spawned): void {
  signal(p, "SIGCONT");
}

/** SIGTERM (resumed first, so that a paused process takes it), then SIGKILL after `graceMs`. */
export async function stop(p: Spawned, graceMs = 3000): Promise<void> {
  resume(p);
  if (!signal(p, "SIGTERM")) return;
  const timer = setTimeout(() => signal(p, "SIGKILL"), graceMs);
  await p.exited;
  clearTimeout(timer);
}

/** Stops every process this module started that is still running. */
export async function stopAll(graceMs?: number): Promise<void> {
  await Promise.all([...live].map((p) => stop(p, graceMs)));
}
