// Requests against agents of a federation (scripts/lib/federation.ts), answers parsed once.
import { type AgentProcess, http } from "../../../../scripts/lib/index.js";

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export async function call(
  agent: AgentProcess,
  path: string,
  method = "GET",
  body?: unknown,
  headers: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<Answer> {
  const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  const res = await http(`${agent.url}${path}`, method, payload, { headers, timeoutMs });
  let json: unknown;
  try {
    json = JSON.parse(res.text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text: res.text, json };
}

/** An answer that must be 200; its JSON. */
export async function ok<T = unknown>(
  agent: AgentProcess,
  path: string,
  method = "GET",
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const res = await call(agent, path, method, body, headers);
  if (res.status !== 200) throw new Error(`${method} ${path} on ${agent.name}: ${res.status} ${res.text}`);
  return res.json as T;
}

export function index(res: Answer): bigint {
  const raw = res.headers.get("x-consul-index");
  if (raw === null) throw new Error("no X-Consul-Index header");
  return BigInt(raw);
}
