// Runs the real `cairn` binary from source (no build step) as a child process.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { runCli } from "../../src/cli.js";

export const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

export interface CairnResult {
  code: number | null;
  stdout: string;
  stdoutBytes: Buffer;
  stderr: string;
}

/** `outsideRoot`: the child runs in another directory, where the bare `tsx` specifier would not resolve. */
export function cairnArgv(args: readonly string[], outsideRoot = false): string[] {
  const tsx = outsideRoot ? createRequire(join(ROOT, "package.json")).resolve("tsx") : "tsx";
  return ["--conditions=source", "--import", outsideRoot ? pathToFileURL(tsx).href : tsx, MAIN, ...args];
}

export function cairn(
  args: readonly string[],
  opts: { env?: Record<string, string>; stdin?: string | Buffer; cwd?: string } = {},
): Promise<CairnResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cairnArgv(args, opts.cwd !== undefined), {
      cwd: opts.cwd ?? ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const stdout: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => stdout.push(d));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const bytes = Buffer.concat(stdout);
      resolve({ code, stdout: bytes.toString(), stdoutBytes: bytes, stderr });
    });
    child.stdin.end(opts.stdin ?? "");
  });
}

/**
 * Runs `cairn ARGS...` inside this process through the same entry the binary uses, against the same real
 * server: the many output checks need not each pay for a Node start-up. Process-level behaviour (exit
 * status, stdin, raw bytes on stdout, signals) is covered by spawning `cairn()`.
 */
export async function cairnInProcess(
  args: readonly string[],
  opts: { env?: Record<string, string>; stdin?: string | Buffer; cwd?: string } = {},
): Promise<CairnResult> {
  const out: Buffer[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    out: (t) => out.push(Buffer.from(t), Buffer.from("\n")),
    err: (t) => err.push(`${t}\n`),
    readStdin: async () => Buffer.from(opts.stdin ?? ""),
    env: { ...opts.env },
    cwd: opts.cwd,
  });
  const bytes = Buffer.concat(out);
  return { code, stdout: bytes.toString(), stdoutBytes: bytes, stderr: err.join("") };
}
