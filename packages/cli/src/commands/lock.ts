// `cairn lock [options] PREFIX CHILD...`: run CHILD while holding a lock (or, with -n > 1, a semaphore
// slot) at PREFIX, as `consul lock` does. The child is stopped if the lock is lost, signals to this
// process are passed on to it, and the lock and session are given up when it exits.
import { boolFlag, durationFlag, intFlag, stringFlag } from "../args.js";
import { realClock } from "../clock.js";
import { type Command, defineCommand, errorText, type Io } from "../command.js";
import { KvApi } from "../kv-api.js";
import { acquireLock } from "../lock/acquire.js";
import { type ChildOptions, type RunningChild, startChild } from "../lock/child.js";
import { DEFAULT_TUNING, type Locker, Mutex, Semaphore } from "../lock/lockers.js";
import type { SessionKeeper } from "../lock/session.js";
import { SessionApi } from "../session-api.js";

/** Time a child gets between SIGTERM and SIGKILL: short against the default 15s lock-delay. */
const KILL_GRACE_MS = 5000;
const SESSION_TTL = "15s";

function whenAborted<T>(signal: AbortSignal, value: T): Promise<T> {
  if (signal.aborted) return Promise.resolve(value);
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(value), { once: true }));
}

/**
 * Runs the child until it exits, the lock is lost, or we are told to stop; in the last two cases the child
 * must not keep acting as the holder, so it is terminated. Returns consul's child code: 2 when it failed.
 */
async function superviseChild(opts: {
  child: ChildOptions;
  lost: AbortSignal;
  shutdown: AbortSignal;
  onStart: (child: RunningChild) => void;
  io: Io;
  verbose: (line: string) => void;
}): Promise<number> {
  const { io, verbose } = opts;
  verbose("Starting handler");
  const running = startChild(opts.child);
  opts.onStart(running);
  const outcome = await Promise.race([
    running.exited.then(
      (code) => ({ kind: "exited" as const, code }),
      (err: unknown) => ({ kind: "failed" as const, err }),
    ),
    whenAborted(opts.lost, { kind: "lost" as const }),
    whenAborted(opts.shutdown, { kind: "shutdown" as const }),
  ]);
  switch (outcome.kind) {
    case "exited":
      if (outcome.code !== 0) io.err(`Error running handler: exit status ${outcome.code}`);
      verbose("Child terminated, releasing lock");
      return outcome.code === 0 ? 0 : 2;
    case "failed":
      io.err(`Error starting handler: ${errorText(outcome.err)}`);
      return 2;
    case "lost":
    case "shutdown":
      if (outcome.kind === "lost") io.err("Lock lost, killing child");
      else verbose("Shutdown triggered, killing child");
      verbose(`Terminating child pid ${running.pid}`);
      // On shutdown the child already has the signal we got; on a lost lock it gets SIGTERM.
      await running.terminate(outcome.kind === "lost" ? "SIGTERM" : null, KILL_GRACE_MS);
      verbose("Child terminated");
      return 0;
  }
}

export const lockCommand: Command = defineCommand({
  synopsis: "Execute a command holding a lock",
  usage: `
Usage: cairn lock [options] prefix child...

  Acquires a lock or semaphore at a given path, and invokes a child process
  when successful. The child process can assume the lock is held while it
  executes. If the lock is lost or communication is disrupted the child
  process will be sent a SIGTERM signal and given time to gracefully exit.
  After the grace period expires the process will be hard terminated.

  When -n=1, only a single lock holder or leader exists providing mutual
  exclusion. Setting a higher value switches to a semaphore allowing multiple
  holders to coordinate.

  The prefix provided must have write privileges.`,
  http: true,
  flags: {
    "child-exit-code": boolFlag(
      "Exit 2 if the child process exited with an error if this is true, otherwise this doesn't " +
        "propagate an error from the child. The default value is false.",
    ),
    "monitor-retry": intFlag(
      "Number of times to retry if the server returns a 500 error while monitoring the lock. This " +
        "allows riding out brief periods of unavailability, but increases the time needed to detect a " +
        "lost lock. The default value is 3, with a 1s wait between retries. Set this value to 0 to " +
        "disable retries.",
      DEFAULT_TUNING.monitorRetries,
    ),
    n: intFlag(
      "Optional limit on the number of concurrent lock holders. The underlying implementation " +
        "switches from a lock to a semaphore when the value is greater than 1. The default value is 1.",
      1,
    ),
    name: stringFlag(
      "Optional name to associate with the lock session. If not provided, one is generated based on " +
        "the provided child command.",
    ),
    "pass-stdin": boolFlag("Pass stdin to the child process."),
    shell: boolFlag(
      "Use a shell to run the command (can set a custom shell via the SHELL environment variable).",
      true,
    ),
    timeout: durationFlag(
      'Maximum amount of time to wait to acquire the lock, specified as a duration like "1s" or "3h". ' +
        "The default value is 0 (wait forever).",
    ),
    verbose: boolFlag("Enable verbose (debugging) output."),
  },
  async run({ values: f, positionals }, { io, client }) {
    if (f.n <= 0) {
      io.err("Lock holder limit must be positive");
      return 1;
    }
    if (positionals.length < 2) {
      io.err("Key prefix and child command must be specified");
      return 1;
    }
    if (f.timeout < 0) {
      io.err("Timeout must be positive");
      return 1;
    }
    if (f["monitor-retry"] < 0) {
      io.err("Number for 'monitor-retry' must be >= 0");
      return 1;
    }
    const prefix = positionals[0]!.replace(/^\//, "");
    const childArgs = positionals.slice(1);
    const verbose = (line: string) => f.verbose && io.out(line);
    const http = client();
    const kv = new KvApi(http);
    const tuning = { ...DEFAULT_TUNING, monitorRetries: f["monitor-retry"] };
    const locker: Locker = f.n === 1 ? new Mutex(kv, prefix, tuning) : new Semaphore(kv, prefix, f.n, tuning);
    verbose(
      f.n === 1
        ? `Setting up lock at path: ${locker.key}`
        : `Setting up semaphore (limit ${f.n}) at prefix: ${prefix}`,
    );

    // SIGINT/SIGTERM: during acquisition they abort it; once the child runs they are passed on to it.
    const shutdown = new AbortController();
    let child: RunningChild | undefined;
    const onSignal = (sig: NodeJS.Signals) => {
      shutdown.abort();
      child?.signal(sig);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    let session: SessionKeeper | undefined;
    try {
      verbose("Attempting lock acquisition");
      const acquired = await acquireLock({
        sessions: new SessionApi(http),
        spec: {
          name: f.name || `Cairn lock for '${childArgs.join(" ")}' at '${prefix}'`,
          ttl: SESSION_TTL,
          // A semaphore's contender entries must vanish with their session, freeing the slot.
          behavior: f.n === 1 ? "release" : "delete",
        },
        locker,
        timeoutMs: f.timeout,
        shutdown: shutdown.signal,
        clock: realClock,
      });
      if (acquired.kind === "failed") {
        io.err(`Lock acquisition failed: ${acquired.message}`);
        return 1;
      }
      if (acquired.kind === "stopped") {
        io.err("Shutdown triggered or timeout during lock acquisition");
        return 1;
      }
      session = acquired.session;
      const held = acquired.held;

      let childCode = 0;
      if (shutdown.signal.aborted) io.err("Shutdown triggered during lock acquisition");
      else {
        childCode = await superviseChild({
          child: {
            args: childArgs,
            shell: f.shell,
            passStdin: f["pass-stdin"],
            env: { ...io.env, CONSUL_LOCK_HELD: "true", CAIRN_LOCK_HELD: "true" },
          },
          lost: AbortSignal.any([held.lost, session.gone]),
          shutdown: shutdown.signal,
          onStart: (running) => {
            child = running;
          },
          io,
          verbose,
        });
      }

      try {
        await held.release();
      } catch (err) {
        io.err(`Lock release failed: ${errorText(err)}`);
        return 1;
      }
      await session.stop().catch(() => undefined);
      session = undefined;
      try {
        const cleanup = await locker.cleanup();
        verbose(cleanup === "done" ? "Cleanup succeeded" : "Cleanup aborted, lock in use");
      } catch (err) {
        io.err(`Lock cleanup failed: ${errorText(err)}`);
        return 1;
      }
      return f["child-exit-code"] ? childCode : 0;
    } finally {
      // Never leave a session (and with it a held lock) behind on an early return.
      await session?.stop().catch(() => undefined);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  },
});
