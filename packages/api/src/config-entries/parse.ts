import type { JsonValue } from "@cairn/json";
import type { z } from "zod";
import { badRequest } from "../http/errors.js";
import { decodeWeakly } from "./decode.js";
import { CONFIG_ENTRY_KINDS } from "./kinds.js";

/** A validated, normalised config entry in Consul's CamelCase form, ready for the state machine. */
export type ConfigEntryBody = Record<string, unknown> & { Kind: string; Name: string; Namespace?: string };

/** Refuses a kind that is not one of the eight, as Consul's MakeConfigEntry does. */
export function requireConfigEntryKind(kind: string): void {
  if (!CONFIG_ENTRY_KINDS.has(kind)) throw badRequest(`invalid config entry kind: ${kind}`);
}

const decodeFailed = (reason: string) => badRequest(`Request decoding failed: ${reason}`);

/** Raft indexes a client read back and sends again are ignored, as Consul does. */
const IGNORED_KEYS = new Set(["CreateIndex", "ModifyIndex"]);

/**
 * Decodes a PUT /v1/config body (or a config file) the way Consul does: the kind picks the schema, fields
 * match in CamelCase or snake_case, unknown fields are refused, then the kind's normalisation and validation
 * run. Every refusal is a 400 with Consul's one-line reason.
 */
export function parseConfigEntry(body: JsonValue): ConfigEntryBody {
  // Consul decodes into a map, which a JSON null body leaves empty.
  const raw = body === null ? {} : body;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw) || typeof raw === "bigint")
    throw decodeFailed("the body must be a JSON object");
  const kind = raw.Kind ?? raw.kind;
  if (kind === undefined) throw decodeFailed("Payload does not contain a kind/Kind key at the top level");
  if (typeof kind !== "string") throw decodeFailed("Kind value in payload is not a string");
  const spec = CONFIG_ENTRY_KINDS.get(kind);
  if (spec === undefined) throw decodeFailed(`invalid config entry kind: ${kind}`);

  const unused: string[] = [];
  const decoded = decodeWeakly(spec.schema, raw, "", unused);
  const unknown = unused.find((key) => !IGNORED_KEYS.has(key));
  if (unknown !== undefined) throw decodeFailed(`invalid config key "${unknown}"`);
  const parsed = spec.schema.safeParse(decoded);
  if (!parsed.success) throw decodeFailed(describeIssue(parsed.error));

  const entry = parsed.data as ConfigEntryBody;
  entry.Kind = kind;
  spec.normalize?.(entry);
  if (!entry.Name) throw badRequest("Name is required");
  const refusal = spec.validate(entry);
  if (refusal !== undefined) throw badRequest(refusal);
  const { Kind: _, Name, ...fields } = compact(entry) as ConfigEntryBody;
  return { Kind: kind, Name, ...fields };
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid body";
  let where = "";
  for (const part of issue.path)
    where += typeof part === "number" ? `[${part}]` : where === "" ? String(part) : `.${String(part)}`;
  return `${where === "" ? "" : `'${where}' `}${issue.message}`.replace(/[\r\n]+/g, " ");
}

/** Drops unset (undefined) members so the stored record and its JSON hold only what is set. */
function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(compact);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) if (member !== undefined) out[key] = compact(member);
  return out;
}
