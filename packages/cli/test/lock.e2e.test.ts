// `cairn lock` end to end: real `cairn lock` processes contending on a real API server.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GiveUp, waitFor } from "../../../scripts/lib/wait.js";
import { type CairnResult, cairn, cairnArgv, cairnInProcess } from "./helpers/cairn.js";
import { startServer, type TestServer } from "./helpers/server.js";

let server: TestServer;
let dir: string;

beforeAll(async () => {
  server = await startServer();
  dir = await mkdtemp(join(tmpdir(), "cairn-lock-"));
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** A child that appends `start NAME` and, after `ms`, `end NAME` to `file`. */
function worker(file: string, name: string, ms: number): string {
  return `echo start ${name} >> ${file}; sleep ${ms / 1000}; echo end ${name} >> ${file}`;
}

/** Most children ever inside their critical section at once, from the marker file. */
async function maxConcurrent(file: string): Promise<{ max: number; finished: number }> {
  let inside = 0;
  let max = 0;
  let finished = 0;
  for (const line of (await readFile(file, "utf8")).trim().split("\n")) {
    if (line.startsWith("start ")) max = Math.max(max, ++inside);
    else {
      inside--;
      finished++;
    }
  }
  return { max, finished };
}

async function getJson(path: string): Promise<unknown> {
  const res = await fetch(`${server.url}${path}`);
  return res.status === 404 ? null : res.json();
}

/**
 * A child that runs until killed. Its `sleep` does not inherit our pipes: when `cairn lock` kills the shell,
 * the orphaned sleep must not keep the test waiting for the pipes to close.
 */
const LONG = "sleep 20 >/dev/null 2>&1";

/** Starts `cairn lock ...` in the background. */
function background(args: string[]) {
  const child = spawn(process.execPath, cairnArgv(["lock", ...args]), {
    env: { PATH: process.env.PATH ?? "", ...server.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout: Buffer[] = [];
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => stdout.push(d));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  let exited = false;
  const done = new Promise<CairnResult>((resolve) =>
    child.on("close", (code) => {
      exited = true;
      const bytes = Buffer.concat(stdout);
      resolve({ code, stdout: bytes.toString(), stdoutBytes: bytes, stderr });
    }),
  );
  /**
   * Waits until `check` holds while the process runs: a process starting on a busy machine may take many
   * seconds, so the deadline is generous, and a process that ended gives up at once with its stderr.
   */
  const until = (what: string, check: () => Promise<boolean>) =>
    waitFor(
      what,
      async () => {
        if (exited) throw new GiveUp(`cairn lock ${args.join(" ")} exited before ${what}: ${stderr}`);
        return (await check()) || undefined;
      },
      START_DEADLINE_MS,
      50,
    );
  return { child, done, until };
}

/** How long a `cairn lock` process may take to start and reach its point (node + tsx, cold, loaded machine). */
const START_DEADLINE_MS = 30_000;
/** Tests that start processes of their own (concurrent starts overlap): one start-up deadline plus what the test does after it. */
const WITH_BACKGROUND_MS = START_DEADLINE_MS + 30_000;

describe("cairn lock", () => {
  it(
    "never runs two holders' children at the same time",
    async () => {
      const file = join(dir, "mutex.log");
      const runs = ["A", "B", "C"].map((name) =>
        cairn(["lock", "jobs/mutex", worker(file, name, 300)], { env: server.env }),
      );
      const results = await Promise.all(runs);
      for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0, stderr: "" });
      expect(await maxConcurrent(file)).toEqual({ max: 1, finished: 3 });
      // Released, cleaned up, and no session left behind.
      expect(await getJson("/v1/kv/jobs/mutex/.lock")).toBeNull();
      expect(await getJson("/v1/session/list")).toEqual([]);
    },
    WITH_BACKGROUND_MS,
  );

  it(
    "lets at most n holders in with -n (a semaphore)",
    async () => {
      const file = join(dir, "semaphore.log");
      const runs = ["A", "B", "C", "D"].map((name) =>
        cairn(["lock", "-n=2", "jobs/sem", worker(file, name, 400)], { env: server.env }),
      );
      const results = await Promise.all(runs);
      for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0, stderr: "" });
      const { max, finished } = await maxConcurrent(file);
      expect(finished).toBe(4);
      expect(max).toBeLessThanOrEqual(2);
      expect(await getJson("/v1/kv/jobs/sem?recurse")).toBeNull();
      expect(await getJson("/v1/session/list")).toEqual([]);
    },
    WITH_BACKGROUND_MS,
  );

  it(
    "refuses a semaphore where a lock is held",
    async () => {
      const holder = background(["jobs/mixed", LONG]);
      await holder.until(
        "the holder to hold jobs/mixed",
        async () => (await getJson("/v1/kv/jobs/mixed/.lock")) !== null,
      );
      const sem = await cairn(["lock", "-n=3", "jobs/mixed", "true"], { env: server.env });
      expect(sem.code).toBe(1);
      expect(sem.stderr).toBe("Lock acquisition failed: Existing key does not match semaphore use\n");
      holder.child.kill("SIGTERM");
      await holder.done;
    },
    WITH_BACKGROUND_MS,
  );

  it(
    "gives up after -timeout while the lock is held elsewhere",
    async () => {
      const holder = background(["jobs/timeout", LONG]);
      let holderSession = "";
      await holder.until("the holder to hold jobs/timeout", async () => {
        const entries = (await getJson("/v1/kv/jobs/timeout/.lock")) as { Session?: string }[] | null;
        holderSession = entries?.[0]?.Session ?? "";
        return holderSession !== "";
      });
      const r = await cairn(["lock", "-timeout=600ms", "jobs/timeout", "echo never"], { env: server.env });
      expect(r).toMatchObject({
        code: 1,
        stdout: "",
        stderr: "Shutdown triggered or timeout during lock acquisition\n",
      });
      // It gave up while the holder still held: it did not wait for the holder's child to end (the bug
      // this guards against), however long its own start-up took. Its session is gone with it.
      const entries = (await getJson("/v1/kv/jobs/timeout/.lock")) as { Session?: string }[];
      expect(entries[0]?.Session).toBe(holderSession);
      const sessions = (await getJson("/v1/session/list")) as { ID: string }[];
      expect(sessions.map((s) => s.ID)).toEqual([holderSession]);
      holder.child.kill("SIGTERM");
      await holder.done;
    },
    WITH_BACKGROUND_MS,
  );

  it(
    "passes SIGTERM to the child, then releases and cleans up",
    async () => {
      const file = join(dir, "signal.log");
      const child = `trap 'echo got-term >> ${file}; exit 0' TERM; echo ready >> ${file}; while true; do sleep 0.05; done`;
      const run = background(["-verbose", "jobs/signal", child]);
      await run.until("the child to start", async () =>
        (await readFile(file, "utf8").catch(() => "")).includes("ready"),
      );
      run.child.kill("SIGTERM");
      const r = await run.done;
      expect(r.code).toBe(0);
      expect(await readFile(file, "utf8")).toBe("ready\ngot-term\n");
      expect(r.stdout).toContain("Shutdown triggered, killing child");
      expect(r.stdout).toContain("Cleanup succeeded");
      expect(await getJson("/v1/kv/jobs/signal/.lock")).toBeNull();
    },
    WITH_BACKGROUND_MS,
  );

  it(
    "kills the child when the lock is lost",
    async () => {
      const file = join(dir, "lost.log");
      const run = background(["jobs/lost", `echo start >> ${file}; ${LONG}; echo end >> ${file}`]);
      let session = "";
      await run.until("the lock to be held", async () => {
        const entries = (await getJson("/v1/kv/jobs/lost/.lock")) as { Session?: string }[] | null;
        session = entries?.[0]?.Session ?? "";
        return session !== "";
      });
      // The lock is held before the child is even spawned: destroying the session now could kill it before
      // its first line, which is not what this test is about.
      await run.until("the child to start", async () =>
        (await readFile(file, "utf8").catch(() => "")).includes("start"),
      );
      await fetch(`${server.url}/v1/session/destroy/${session}`, { method: "PUT" });
      const r = await run.done;
      expect(r.stderr).toContain("Lock lost, killing child");
      expect(await readFile(file, "utf8")).toBe("start\n");
    },
    WITH_BACKGROUND_MS,
  );

  it("exits 2 with -child-exit-code when the child fails", async () => {
    const env = { ...server.env, PATH: process.env.PATH ?? "" };
    const failing = await cairnInProcess(["lock", "-child-exit-code", "jobs/code", "exit 3"], { env });
    expect(failing.code).toBe(2);
    expect(failing.stderr).toBe("Error running handler: exit status 3\n");
    const plain = await cairnInProcess(["lock", "jobs/code", "exit 3"], { env });
    expect(plain.code).toBe(0);
  });

  it("checks its arguments as consul lock does", async () => {
    expect((await cairnInProcess(["lock", "jobs/only"], { env: server.env })).stderr).toBe(
      "Key prefix and child command must be specified\n",
    );
    expect((await cairnInProcess(["lock", "-n=0", "p", "true"], { env: server.env })).stderr).toBe(
      "Lock holder limit must be positive\n",
    );
  });
});
