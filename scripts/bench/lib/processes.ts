// Child processes for benchmarks and multi-process tests: free loopback ports, spawning with captured
// output, and a registry that kills everything it started by PID, also when the parent fails or is
// interrupted.

import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import { createServer } from "node:net";

/** A port that was free on 127.0.0.1 a moment ago (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no TCP address for a free port");
  return address.port;
}

/** `count` distinct free ports. */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

export interface Spawned {
  name: string;
  child: ChildProcess;
  pid: number;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  /** Last lines of combined stdout/stderr, for error messages. */
  tail(): string;
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
  for (const p of live) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  live.clear();
}

/**
 * Starts `command args` with its output kept in memory (the last few kB) and optionally appended to
 * `logFile`. The process is registered so that `stopAll` and the parent's exit kill it.
 */
export function spawnTracked(
  name: string,
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; logFile?: string } = {},
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
    exited: new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        live.delete(spawned);
        log?.end();
        resolve(code ?? signal ?? "unknown");
      });
    }),
    tail: () => tail,
  };
  live.add(spawned);
  return spawned;
}

/** SIGTERM, then SIGKILL after `graceMs` if it is still running. */
export async function stop(p: Spawned, graceMs = 3000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  try {
    process.kill(p.pid, "SIGTERM");
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // exited meanwhile
    }
  }, graceMs);
  await p.exited;
  clearTimeout(timer);
}

/** Stops every process this module started that is still running. */
export async function stopAll(graceMs?: number): Promise<void> {
  await Promise.all([...live].map((p) => stop(p, graceMs)));
}

/** Thrown by a `waitFor` check to stop waiting at once (for example when the awaited process died). */
export class GiveUp extends Error {}

/**
 * Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. Errors from the
 * check count as "not yet", except GiveUp.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  while (performance.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      if (err instanceof GiveUp) throw err;
      lastError = err;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  const reason = lastError instanceof Error ? `: ${lastError.message}` : "";
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
}

/** Resident set size of a process in bytes, from /proc (Linux). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match?.[1]) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/** CPU time (user + system) a process has used, in seconds, from /proc (Linux; 100 ticks a second). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the parenthesised command name, which may itself contain spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
