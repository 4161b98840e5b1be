// wrk (Debian's package) as the load generator: written in C over OpenSSL, it costs far less CPU per request
// than a Node client, which matters on a 2-core machine where generator and servers share the cores and TLS
// doubles the client's own work. Keys are drawn uniformly at random by a small Lua script.
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installDebianPackage } from "./debian.js";
import type { HttpTarget } from "./http-client.js";
import type { LoadResult } from "./load.js";

/** Makes sure `wrk` runs, installing Debian's package when it is missing. */
export function ensureWrk(log: (line: string) => void = console.error): void {
  const runs = () => !spawnSync("wrk", ["--version"]).error;
  if (runs()) return;
  installDebianPackage("wrk", log);
  if (!runs()) throw new Error("wrk installed, but does not run");
}

export interface WrkOptions {
  target: HttpTarget;
  method: "GET" | "PUT";
  /** Paths are `${prefix}${index padded to 8 digits}` for a uniformly random index below `keys`. */
  prefix: string;
  keys: number;
  body?: string;
  connections: number;
  threads: number;
  seconds: number;
}

/** One wrk run; latency percentiles from wrk's --latency table, errors = non-2xx answers + socket errors. */
export async function runWrk(o: WrkOptions): Promise<LoadResult> {
  const dir = await mkdtemp(join(tmpdir(), "cairn-wrk-"));
  try {
    const script = join(dir, "keys.lua");
    await writeFile(
      script,
      [
        `local n = ${o.keys}`,
        `local body = ${o.body === undefined ? "nil" : JSON.stringify(o.body)}`,
        "math.randomseed(os.time())",
        "request = function()",
        `  return wrk.format(${JSON.stringify(o.method)}, ${JSON.stringify(o.prefix)} .. string.format("%08d", math.random(0, n - 1)), nil, body)`,
        "end",
      ].join("\n"),
    );
    const url = `${o.target.tls ? "https" : "http"}://${o.target.host}:${o.target.port}/`;
    const args = ["-t", String(o.threads), "-c", String(o.connections), "-d", `${o.seconds}s`, "--latency"];
    const out = await run("wrk", [...args, "-s", script, url]);
    return parseWrk(out, o.connections);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`wrk exited ${code}: ${out}`)),
    );
  });
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function durationMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) throw new Error(`wrk: cannot read the duration ${JSON.stringify(text)}`);
  return Number(m[1]) * (UNIT_MS[m[2]!] ?? Number.NaN);
}

/** Reads wrk's report (exported for its test). */
export function parseWrk(out: string, concurrency: number): LoadResult {
  const number = (re: RegExp) => Number(re.exec(out)?.[1] ?? Number.NaN);
  const percentile = (p: string) => {
    const m = new RegExp(`^\\s*${p}%\\s+(\\S+)`, "m").exec(out);
    return m ? durationMs(m[1]!) : Number.NaN;
  };
  const ops = number(/(\d+) requests in/);
  const seconds = durationMs(/requests in ([\d.]+(?:us|ms|s|m)),/.exec(out)?.[1] ?? "NaNs") / 1000;
  const non2xx = number(/Non-2xx or 3xx responses: (\d+)/) || 0;
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  const max = /Latency\s+\S+\s+\S+\s+(\S+)/.exec(out)?.[1];
  const result: LoadResult = {
    concurrency,
    ops,
    errors: non2xx + socketErrors,
    seconds,
    opsPerSec: number(/Requests\/sec:\s+([\d.]+)/),
    p50: percentile("50"),
    p99: percentile("99"),
    max: max ? durationMs(max) : Number.NaN,
  };
  if (!Number.isFinite(result.opsPerSec)) throw new Error(`wrk: cannot read its report:\n${out}`);
  return result;
}
