// Real `cairn agent` server processes on loopback for the cluster tests.
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../../../..");
const CLI = join(ROOT, "packages/cli/src/main.ts");

/** Distinct free loopback ports (bound and released; the agents bind them right after). */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<import("node:net").Server>((ok, fail) => {
          const s = createServer();
          s.once("error", fail);
          s.listen(0, "127.0.0.1", () => ok(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as import("node:net").AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
  return ports;
}

export interface AgentPorts {
  http: number;
  server: number;
  serfLan: number;
}

export interface AgentProcess {
  name: string;
  ports: AgentPorts;
  dataDir: string;
  args: string[];
  proc: ChildProcess;
  url: string;
  /** Raft address as the status endpoints report it. */
  serverAddress: string;
  logFile: string;
  exited: Promise<number | null>;
}

/** Spawns `cairn agent <args>`; its output goes to a log file next to its data directory. */
export function spawnAgent(name: string, ports: AgentPorts, dataDir: string, args: string[]): AgentProcess {
  const logFile = `${dataDir}.log`;
  const out = createWriteStream(logFile, { flags: "a" });
  const proc = spawn(process.execPath, ["--conditions=source", "--import", "tsx", CLI, "agent", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, HOSTNAME: name },
  });
  proc.stdout?.pipe(out);
  proc.stderr?.pipe(out);
  const exited = new Promise<number | null>((ok) => proc.once("exit", (code) => ok(code)));
  return {
    name,
    ports,
    dataDir,
    args,
    proc,
    url: `http://127.0.0.1:${ports.http}`,
    serverAddress: `127.0.0.1:${ports.server}`,
    logFile,
    exited,
  };
}

/** Server-mode flags for one member of a test cluster. */
export function serverArgs(
  name: string,
  ports: AgentPorts,
  dataDir: string,
  join: string[],
  extra: string[] = [],
): string[] {
  return [
    "-server",
    "-node",
    name,
    "-data-dir",
    dataDir,
    "-bind",
    "127.0.0.1",
    "-http-port",
    String(ports.http),
    "-server-port",
    String(ports.server),
    "-serf-lan-port",
    String(ports.serfLan),
    ...join.flatMap((j) => ["-retry-join", j]),
    // Consul's fast timing (election timeout 1 s) and a short autopilot stabilization keep the suite quick.
    "-hcl",
    "performance { raft_multiplier = 1 }",
    "-hcl",
    'autopilot { server_stabilization_time = "2s" }',
    ...extra,
  ];
}

export function tempRoot(): string {
  return mkdtempSync(join(tmpdir(), "cairn-agent-test-"));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((ok) => setTimeout(ok, everyMs));
  }
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export async function http(
  url: string,
  method = "GET",
  body?: string,
  timeoutMs = 15_000,
): Promise<HttpAnswer> {
  const res = await fetch(url, { method, body, signal: AbortSignal.timeout(timeoutMs) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

export function killProcess(agent: AgentProcess, signal: NodeJS.Signals = "SIGKILL"): void {
  if (agent.proc.exitCode === null && agent.proc.signalCode === null && agent.proc.pid !== undefined) {
    try {
      process.kill(agent.proc.pid, signal);
    } catch {
      // already gone
    }
  }
}
