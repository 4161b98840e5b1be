// The child process `cairn lock` runs while it holds the lock.
import { type ChildProcess, spawn } from "node:child_process";

export interface ChildOptions {
  args: readonly string[];
  /** Run through `$SHELL -c` (default /bin/sh), as consul's -shell does; otherwise exec args directly. */
  shell: boolean;
  passStdin: boolean;
  env: NodeJS.ProcessEnv;
}

export interface RunningChild {
  pid: number | undefined;
  /** Resolves with the exit code (128 + signal number when killed by a signal); rejects if it cannot start. */
  exited: Promise<number>;
  signal(sig: NodeJS.Signals): void;
  /** Signals `first` (unless the child was already signalled), waits up to `graceMs`, then SIGKILLs. */
  terminate(first: NodeJS.Signals | null, graceMs: number): Promise<void>;
}

const SIGNAL_NUMBERS: Partial<Record<string, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

export function startChild(opts: ChildOptions): RunningChild {
  const [file, ...rest] = opts.shell
    ? [opts.env.SHELL || "/bin/sh", "-c", opts.args.join(" ")]
    : (opts.args as [string, ...string[]]);
  const child: ChildProcess = spawn(file!, rest, {
    stdio: [opts.passStdin ? "inherit" : "ignore", "inherit", "inherit"],
    env: opts.env,
  });
  const exited = new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code ?? 128 + (SIGNAL_NUMBERS[signal ?? ""] ?? 0)));
  });
  let done = false;
  exited.then(
    () => (done = true),
    () => (done = true),
  );
  const signal = (sig: NodeJS.Signals) => {
    if (!done) child.kill(sig);
  };
  return {
    pid: child.pid,
    exited,
    signal,
    async terminate(first, graceMs) {
      if (first !== null) signal(first);
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<"timeout">(
        (resolve) => (timer = setTimeout(() => resolve("timeout"), graceMs)),
      );
      const outcome = await Promise.race([exited.catch(() => 0), grace]);
      clearTimeout(timer);
      if (outcome === "timeout") {
        signal("SIGKILL");
        await exited.catch(() => 0);
      }
    },
  };
}
