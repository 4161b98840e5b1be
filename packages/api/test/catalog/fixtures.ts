import { expect } from "vitest";
import type { TestServer } from "../http/harness.js";

/** Shared helpers of the catalog tests: register through the real endpoint, read JSON, expect 400s. */

export async function register(s: TestServer, body: unknown, path = "/v1/catalog/register"): Promise<void> {
  const res = await s.req("PUT", path, JSON.stringify(body));
  const text = await res.text();
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${text}`);
}

export async function getJson<T>(
  s: TestServer,
  path: string,
): Promise<{ body: T; index: number; res: Response }> {
  const res = await s.req("GET", path);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text}`);
  return { body: JSON.parse(text) as T, index: Number(res.headers.get("X-Consul-Index")), res };
}

export async function expect400(res: Response, reason: string | RegExp): Promise<void> {
  const text = await res.text();
  expect(res.status, text).toBe(400);
  expect(text).not.toContain("\n");
  if (typeof reason === "string") expect(text).toBe(reason);
  else expect(text).toMatch(reason);
}

/** An 8-dimensional coordinate at `x` seconds along the first axis. */
export function coordAt(x: number): { Vec: number[]; Error: number; Adjustment: number; Height: number } {
  return { Vec: [x, 0, 0, 0, 0, 0, 0, 0], Error: 1.5, Adjustment: 0, Height: 1e-5 };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
