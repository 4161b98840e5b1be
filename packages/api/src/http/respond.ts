import { writeJson } from "@cairn/json";
import type { Context } from "hono";

const JSON_TYPE = { "Content-Type": "application/json" };

/** A JSON response written with the bigint-exact writer. */
export function jsonResponse(c: Context, value: unknown, status: 200 | 409 = 200): Response {
  return c.body(writeJson(value), status, JSON_TYPE);
}

/** A JSON response whose body the route already encoded (hot paths build their JSON directly). */
export function encodedJsonResponse(c: Context, body: string, status: 200 | 409 = 200): Response {
  return c.body(body, status, JSON_TYPE);
}
