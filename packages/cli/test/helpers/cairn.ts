// Runs the real `cairn` binary from source (no build step) as a child process.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

export interface CairnResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cairnArgv(args: readonly string[]): string[] {
  return ["--conditions=source", "--import", "tsx", MAIN, ...args];
}

export function cairn(
  args: readonly string[],
  opts: { env?: Record<string, string>; stdin?: string | Buffer } = {},
): Promise<CairnResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cairnArgv(args), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? "");
  });
}
