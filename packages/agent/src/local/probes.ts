import { execFile } from "node:child_process";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { CheckDefinition } from "@cairn/api";
import type { HealthStatus } from "@cairn/fsm";

/** One run of a check: the status it found and the output an operator reads. */
export interface ProbeResult {
  readonly status: HealthStatus;
  readonly output: string;
}

export type Probe = () => Promise<ProbeResult>;

/** Consul's default cap on a check's output (4 KiB). */
export const DEFAULT_OUTPUT_MAX = 4096;

/**
 * An HTTP check as Consul runs it: `Method` (GET) with the definition's headers and body; 2xx is passing,
 * 429 Too Many Requests is warning, anything else (or no answer within the timeout) is critical. The output
 * is the status line followed by the start of the response body.
 */
export function httpProbe(def: CheckDefinition, timeoutMs: number): Probe {
  const url = new URL(def.HTTP);
  const client = url.protocol === "https:" ? https : http;
  const method = def.Method || "GET";
  const headers: Record<string, string | string[]> = {
    "User-Agent": "Consul Health Check",
    Accept: "text/plain, text/*, */*",
  };
  for (const [name, values] of Object.entries(def.Header)) headers[name] = [...values];
  const maxOutput = def.OutputMaxSize || DEFAULT_OUTPUT_MAX;
  return () =>
    new Promise<ProbeResult>((resolve) => {
      const req = client.request(
        url,
        {
          method,
          headers,
          timeout: timeoutMs,
          rejectUnauthorized: !def.TLSSkipVerify,
          servername: def.TLSServerName || undefined,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            if (size < maxOutput) chunks.push(chunk);
            size += chunk.length;
          });
          res.on("end", () => {
            const code = res.statusCode ?? 0;
            const body = Buffer.concat(chunks).subarray(0, maxOutput).toString("utf8");
            const output = `HTTP ${method} ${def.HTTP}: ${code} ${res.statusMessage ?? ""} Output: ${body}`;
            const status: HealthStatus =
              code >= 200 && code <= 299 ? "passing" : code === 429 ? "warning" : "critical";
            resolve({ status, output });
          });
          res.on("error", (err) =>
            resolve({ status: "critical", output: `${method} ${def.HTTP}: ${err.message}` }),
          );
        },
      );
      req.on("timeout", () => req.destroy(new Error(`request timed out after ${timeoutMs} ms`)));
      req.on("error", (err) =>
        resolve({ status: "critical", output: `${method} ${JSON.stringify(def.HTTP)}: ${err.message}` }),
      );
      req.end(def.Body || undefined);
    });
}

/** A TCP check: passing when a connection opens within the timeout. */
export function tcpProbe(def: CheckDefinition, timeoutMs: number): Probe {
  const colon = def.TCP.lastIndexOf(":");
  const host = def.TCP.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
  const port = Number(def.TCP.slice(colon + 1));
  return () =>
    new Promise<ProbeResult>((resolve) => {
      const socket = net.connect({ host, port, timeout: timeoutMs });
      socket.once("connect", () => {
        socket.destroy();
        resolve({ status: "passing", output: `TCP connect ${def.TCP}: Success` });
      });
      socket.once("timeout", () => socket.destroy(new Error(`i/o timeout after ${timeoutMs} ms`)));
      socket.once("error", (err) =>
        resolve({ status: "critical", output: `dial tcp ${def.TCP}: ${err.message}` }),
      );
    });
}

/** A script check: exit 0 is passing, 1 is warning, anything else (or a timeout) is critical. */
export function scriptProbe(def: CheckDefinition, timeoutMs: number): Probe {
  const [command = "", ...args] = def.ScriptArgs;
  const maxOutput = def.OutputMaxSize || DEFAULT_OUTPUT_MAX;
  return () =>
    new Promise<ProbeResult>((resolve) => {
      execFile(command, args, { timeout: timeoutMs, maxBuffer: 1024 * 1024 }, (err, stdout, stderr) => {
        const output = `${stdout}${stderr}`.slice(0, maxOutput);
        if (err === null) return resolve({ status: "passing", output });
        const code = typeof err.code === "number" ? err.code : undefined;
        if (code === 1) return resolve({ status: "warning", output });
        resolve({ status: "critical", output: output || err.message });
      });
    });
}
