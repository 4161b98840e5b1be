import http from "node:http";
import type { CheckDefinition } from "@cairn/api";
import { errnoText } from "./go-errors.js";
import { DEFAULT_OUTPUT_MAX, type Probe, type ProbeResult } from "./probes.js";

/** Where Consul finds the Docker Engine when DOCKER_HOST is not set. */
export const DEFAULT_DOCKER_HOST = "unix:///var/run/docker.sock";

/** How requests reach the engine: a unix socket, or a TCP host and port. */
type Endpoint = { socketPath: string } | { host: string; port: number; basePath: string };

/**
 * A Docker check as Consul runs it: `ScriptArgs` executed in container `DockerContainerID` through the
 * Docker Engine API (exec create, start, inspect) at `dockerHost` (DOCKER_HOST's syntax: `unix:///path` or
 * `tcp://host:port`). Exit 0 is passing, 1 warning, anything else critical, with the command's output (its
 * last OutputMaxSize bytes); an engine that cannot be reached, or refuses, makes the check critical with the
 * reason. Consul sets no time limit on these; Cairn bounds a run by the check's timeout so that a hung
 * engine cannot stall the check forever.
 */
export function dockerProbe(def: CheckDefinition, timeoutMs: number, dockerHost: string): Probe {
  const id = def.DockerContainerID;
  const maxOutput = def.OutputMaxSize || DEFAULT_OUTPUT_MAX;
  return async () => {
    const endpoint = parseDockerHost(dockerHost);
    if (typeof endpoint === "string") return { status: "critical", output: endpoint };
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      return await runExec(endpoint, id, def.ScriptArgs, maxOutput, signal);
    } catch (err) {
      if (signal.aborted) return { status: "critical", output: `Timed out (${timeoutMs} ms) running check` };
      return { status: "critical", output: (err as Error).message };
    }
  };
}

async function runExec(
  endpoint: Endpoint,
  id: string,
  cmd: readonly string[],
  maxOutput: number,
  signal: AbortSignal,
): Promise<ProbeResult> {
  const call = (method: string, path: string, body?: unknown) =>
    request(endpoint, method, path, body, signal);
  const created = await call("POST", `/containers/${encodeURIComponent(id)}/exec`, {
    AttachStdin: false,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    Cmd: cmd,
  }).catch((err: Error) => {
    throw new Error(`create exec failed for container ${id}: ${err.message}`);
  });
  if (created.code === 404) throw new Error(`create exec failed for unknown container ${id}`);
  if (created.code === 409) throw new Error(`create exec failed since container ${id} is paused or stopped`);
  if (created.code !== 201) {
    throw new Error(`create exec failed for container ${id} with status ${created.code}: ${text(created)}`);
  }
  const execId = jsonField(
    created,
    "Id",
    "string",
    `create exec response for container ${id} cannot be parsed`,
  );
  // Tty on start: the engine sends the output as it is, not in its multiplexed stream format.
  const started = await call("POST", `/exec/${execId}/start`, { Detach: false, Tty: true }).catch(
    (err: Error) => {
      throw new Error(`start exec failed for container ${id}: ${err.message}`);
    },
  );
  if (started.code === 404)
    throw new Error(`start exec failed for container ${id}: invalid exec id ${execId}`);
  if (started.code === 409) throw new Error(`start exec failed since container ${id} is paused or stopped`);
  if (started.code !== 200) {
    throw new Error(
      `start exec failed for container ${id} with status ${started.code}: body: ${text(started)}`,
    );
  }
  const inspected = await call("GET", `/exec/${execId}/json`).catch((err: Error) => {
    throw new Error(`inspect exec failed for container ${id}: ${err.message}`);
  });
  if (inspected.code === 404) {
    throw new Error(`inspect exec failed for container ${id}: invalid exec id ${execId}`);
  }
  if (inspected.code !== 200) {
    throw new Error(
      `inspect exec failed for container ${id} with status ${inspected.code}: ${text(inspected)}`,
    );
  }
  const exitCode = jsonField(
    inspected,
    "ExitCode",
    "number",
    `inspect exec response for container ${id} cannot be parsed`,
  );
  const output = tail(started.body, maxOutput);
  const status = exitCode === 0 ? "passing" : exitCode === 1 ? "warning" : "critical";
  return { status, output };
}

interface Answer {
  code: number;
  body: Buffer;
}

function request(
  endpoint: Endpoint,
  method: string,
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const target =
    "socketPath" in endpoint
      ? { socketPath: endpoint.socketPath, path }
      : { host: endpoint.host, port: endpoint.port, path: `${endpoint.basePath}${path}` };
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        ...target,
        method,
        signal,
        // Any name will do on a unix socket; Docker's own clients send this one.
        headers: {
          Host: "docker",
          ...(payload === undefined ? {} : { "Content-Type": "application/json" }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ code: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    req.on("error", (err) => reject(new Error(dialText(endpoint, err))));
    req.end(payload);
  });
}

function dialText(endpoint: Endpoint, err: Error): string {
  if ("socketPath" in endpoint) return `dial unix ${endpoint.socketPath}: connect: ${errnoText(err)}`;
  return `dial tcp ${endpoint.host}:${endpoint.port}: connect: ${errnoText(err)}`;
}

/** DOCKER_HOST as Docker's clients read it; a string is the reason it cannot be used. */
export function parseDockerHost(host: string): Endpoint | string {
  const sep = host.indexOf("://");
  if (sep < 0) return `unable to parse docker host \`${host}\``;
  const proto = host.slice(0, sep);
  const rest = host.slice(sep + 3);
  if (proto === "unix") return { socketPath: rest };
  if (proto === "tcp") {
    try {
      const url = new URL(`http://${rest}`);
      return {
        host: url.hostname,
        port: Number(url.port || 2375),
        basePath: url.pathname.replace(/\/$/, ""),
      };
    } catch {
      return `unable to parse docker host \`${host}\``;
    }
  }
  return `docker host protocol ${proto} is not supported (unix or tcp)`;
}

function text(answer: Answer): string {
  return answer.body.toString("utf8").trim();
}

function jsonField<T extends "string" | "number">(
  answer: Answer,
  field: string,
  type: T,
  failure: string,
): T extends "string" ? string : number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body.toString("utf8"));
  } catch (err) {
    throw new Error(`${failure}: ${(err as Error).message}`);
  }
  const value = (parsed as Record<string, unknown> | null)?.[field];
  if (typeof value !== type) throw new Error(`${failure}: no ${field}`);
  return value as T extends "string" ? string : number;
}

/** The last `max` bytes of the output, said to be cut as Consul says it. */
function tail(output: Buffer, max: number): string {
  if (output.length <= max) return output.toString("utf8");
  const kept = output.subarray(output.length - max).toString("utf8");
  return `Captured ${max} of ${output.length} bytes\n...\n${kept}`;
}
