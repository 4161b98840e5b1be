// wrk (Debian's package) as the load generator: written in C over OpenSSL, it costs far less CPU per request
// than a Node client, which matters on a 2-core machine where generator and servers share the cores and TLS
// doubles the client's own work. Requests are drawn uniformly at random from a list by a small Lua script.
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

/** One kind of request wrk sends; each request it sends is one of the list, drawn uniformly at random. */
export interface WrkRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface WrkOptions {
  target: HttpTarget;
  requests: readonly WrkRequest[];
  connections: number;
  threads: number;
  seconds: number;
}

/** wrk's figures, with p99.9 from its latency histogram and the CPU wrk itself used, in cores. */
export interface WrkResult extends LoadResult {
  readonly generatorCores: number;
}

/** A Lua long string: no escaping, as long as the text does not hold the closing bracket. */
function luaString(text: string): string {
  if (text.includes("]==]")) throw new Error(`wrk: cannot quote ${JSON.stringify(text)} for Lua`);
  return `[==[${text}]==]`;
}

/**
 * The wrk script: the request list as a Lua table, formatted once per thread; each request drawn at
 * random; at the end, p99.9 of the latency histogram (in microseconds), which --latency does not print.
 */
function script(requests: readonly WrkRequest[]): string {
  const specs = requests.map((r) => {
    const headers = Object.entries(r.headers ?? {})
      // The spaces matter: "[[" would open a Lua long string.
      .map(([k, v]) => `[ ${luaString(k)} ]=${luaString(v)}`)
      .join(",");
    return `{${luaString(r.method)},${luaString(r.path)},${r.body === undefined ? "nil" : luaString(r.body)},{${headers}}}`;
  });
  return [
    `local specs = {\n${specs.join(",\n")}\n}`,
    "local reqs = {}",
    // Each thread its own random stream: setup() runs in the main state once per thread, before init().
    "local threads = 0",
    'setup = function(thread) threads = threads + 1; thread:set("id", threads) end',
    "init = function(args)",
    "  math.randomseed(os.time() * 1000 + id)",
    "  for i, s in ipairs(specs) do reqs[i] = wrk.format(s[1], s[2], s[4], s[3]) end",
    "end",
    "request = function() return reqs[math.random(#reqs)] end",
    'done = function(summary, latency, requests) io.write(string.format("P999 %d\\n", latency:percentile(99.9))) end',
  ].join("\n");
}

/**
 * One wrk run. Latency percentiles come from wrk's --latency table and the script's p99.9; errors are
 * non-2xx answers plus socket errors; wrk runs under bash so `times` reports the CPU it used.
 */
export async function runWrk(o: WrkOptions): Promise<WrkResult> {
  const dir = await mkdtemp(join(tmpdir(), "cairn-wrk-"));
  try {
    const file = join(dir, "requests.lua");
    await writeFile(file, script(o.requests));
    const url = `${o.target.tls ? "https" : "http"}://${o.target.host}:${o.target.port}/`;
    const args = ["-t", String(o.threads), "-c", String(o.connections), "-d", `${o.seconds}s`, "--latency"];
    const started = performance.now();
    const out = await run("bash", ["-c", 'wrk "$@" && times', "wrk", ...args, "-s", file, url]);
    const seconds = (performance.now() - started) / 1000;
    // Without the script's line the script did not load, and wrk silently sent plain GETs of "/".
    const p999Line = /^P999 (\d+)$/m.exec(out);
    if (!p999Line) throw new Error(`wrk: the request script did not run:\n${out}`);
    const result = parseWrk(out, o.connections);
    const p999 = Number(p999Line[1]) / 1000;
    return { ...result, p999, generatorCores: childCpuSeconds(out) / seconds };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** bash's `times` prints the shell's user and system time, then its children's: the second line is wrk's. */
function childCpuSeconds(out: string): number {
  const lines = out.trim().split("\n");
  const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(lines.at(-1) ?? "");
  if (!m) return Number.NaN;
  return Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]);
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

/** Reads wrk's report. */
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
  const errors = non2xx + socketErrors;
  const result: LoadResult = {
    concurrency,
    ops,
    errors,
    // wrk counts errors without saying which requests failed; this says which kind they were.
    ...(errors > 0
      ? {
          firstError:
            `${non2xx} non-2xx answers; socket errors: connect ${socket?.[1] ?? 0}, read ${socket?.[2] ?? 0}, ` +
            `write ${socket?.[3] ?? 0}, timeout ${socket?.[4] ?? 0}`,
        }
      : {}),
    seconds,
    opsPerSec: number(/Requests\/sec:\s+([\d.]+)/),
    p50: percentile("50"),
    p99: percentile("99"),
    p999: Number.NaN, // from the script's done() line, read by runWrk
    max: max ? durationMs(max) : Number.NaN,
  };
  if (!Number.isFinite(result.opsPerSec)) throw new Error(`wrk: cannot read its report:\n${out}`);
  return result;
}
