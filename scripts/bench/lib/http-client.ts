// A minimal HTTP/1.1 client over node:http with keep-alive connection pools, for load generation: no
// fetch/undici machinery per request, the body is collected as one Buffer.

import { Agent, type IncomingHttpHeaders, request } from "node:http";
import {
  Agent as HttpsAgent,
  type AgentOptions as HttpsAgentOptions,
  request as httpsRequest,
} from "node:https";

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface HttpTarget {
  host: string;
  port: number;
  /** HTTPS: the agent must then come from `keepAliveTlsAgent`. */
  tls?: boolean;
}

/** A keep-alive pool that holds up to `maxSockets` connections per host (one per concurrent client). */
export function keepAliveAgent(maxSockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: "fifo" });
}

/** keepAliveAgent for HTTPS targets, with the CA and client certificate in `tls`. */
export function keepAliveTlsAgent(maxSockets: number, tls: HttpsAgentOptions): Agent {
  return new HttpsAgent({
    ...tls,
    keepAlive: true,
    maxSockets,
    maxFreeSockets: maxSockets,
    scheduling: "fifo",
  });
}

export function httpRequest(
  agent: Agent,
  target: HttpTarget,
  method: string,
  path: string,
  body?: Buffer | string,
  headers: Record<string, string> = {},
): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const send = target.tls ? httpsRequest : request;
    const req = send({ agent, host: target.host, port: target.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Like httpRequest, but any status other than 2xx is an error carrying the status and body. */
export async function httpOk(
  agent: Agent,
  target: HttpTarget,
  method: string,
  path: string,
  body?: Buffer | string,
  headers?: Record<string, string>,
): Promise<HttpResponse> {
  const res = await httpRequest(agent, target, method, path, body, headers);
  if (res.status < 200 || res.status > 299) {
    throw new Error(`${method} ${path} -> ${res.status} ${res.body.toString().slice(0, 200)}`);
  }
  return res;
}
