import { JsonSyntaxError, readJson } from "@cairn/json";
import type { z } from "zod";
import { badRequest } from "../http/errors.js";
import { goBody } from "./canonical-keys.js";

/**
 * Decodes a request body the way Consul's Go server does (case-insensitive field names, exact uint64s)
 * and validates it with zod. Any failure is a 400 with a one-line reason.
 */
export function decodeBody<S extends z.ZodType>(schema: S, text: string): z.output<S> {
  let raw: ReturnType<typeof readJson>;
  try {
    raw = readJson(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw badRequest(`Request decode failed: ${err.message}`);
    throw err;
  }
  const parsed = schema.safeParse(goBody(schema, raw));
  if (!parsed.success) throw badRequest(`Request decode failed: ${describeIssue(parsed.error)}`);
  return parsed.data;
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid body";
  const where = issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ` : "";
  return `${where}${issue.message}`.replace(/[\r\n]+/g, " ");
}
