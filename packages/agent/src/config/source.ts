import { HclParseError, parseHcl } from "@cairn/hcl";
import { rewriteLegacyKeys } from "./legacy.js";
import { type ConfigSourceValues, configSourceSchema } from "./schema.js";
import { ignoredKeyWarning } from "./unsupported.js";

/** Start-up must stop: the message names the source and the key, on one line. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export type ConfigFormat = "json" | "hcl";

/** Configuration text and where it came from (`config file /etc/cairn/a.hcl`, `-hcl flag`). */
export interface ConfigText {
  readonly name: string;
  readonly format: ConfigFormat;
  readonly text: string;
}

/** A configuration file as read from disk. */
export interface ConfigFile extends ConfigText {
  readonly path: string;
}

type RawObject = Record<string, unknown>;
type Path = readonly PropertyKey[];

function isObject(value: unknown): value is RawObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Parses JSON or HCL text into Consul's JSON shape. An empty file is an empty configuration. A key whose
 * value is null is absent, as Consul's decoder has it (harnesses write `"agent": null`); HCL's JSON form
 * drops those already.
 */
export function parseConfigText(source: ConfigText): RawObject {
  if (source.text.trim() === "") return {};
  let value: unknown;
  try {
    value = source.format === "json" ? JSON.parse(source.text) : parseHcl(source.text);
  } catch (error) {
    if (error instanceof HclParseError) throw new ConfigError(`${source.name}: ${error.message}`);
    if (error instanceof SyntaxError) throw new ConfigError(`${source.name}: invalid JSON: ${error.message}`);
    throw error;
  }
  if (!isObject(value)) throw new ConfigError(`${source.name}: expected a JSON object at the top level`);
  dropNullMembers(value);
  return value;
}

/** Deletes every object member whose value is null, at any depth (iterative: input may nest deeply). */
function dropNullMembers(root: RawObject): void {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const next = pending.pop();
    if (Array.isArray(next)) pending.push(...next);
    else if (isObject(next)) {
      for (const [key, child] of Object.entries(next)) {
        if (child === null) delete next[key];
        else pending.push(child);
      }
    }
  }
}

/** Writes a key path as the configuration spells it: `acl.tokens.agent`, `services[0].name`. */
export function dottedPath(path: Path): string {
  return path.reduce<string>((text, key) => {
    if (typeof key === "number") return `${text}[${key}]`;
    return text === "" ? String(key) : `${text}.${String(key)}`;
  }, "");
}

/**
 * Checks one source against the schema. Bad values throw ConfigError naming the source and key (`label`
 * lets the flags source name the flag instead); deprecated keys are moved and unknown keys dropped, each with a
 * warning.
 */
export function validateSource(
  name: string,
  raw: RawObject,
  label: (path: string) => string = (path) => path,
): { values: ConfigSourceValues; warnings: string[] } {
  const rewritten = rewriteLegacyKeys(raw);
  const warnings = rewritten.warnings.map((warning) => `${name}: ${warning}`);
  if (rewritten.conflicts.length > 0)
    throw new ConfigError(rewritten.conflicts.map((conflict) => `${name}: ${conflict}`).join("; "));
  const first = configSourceSchema.safeParse(rewritten.raw);
  if (first.success) return { values: foldSingularDefinitions(first.data), warnings };

  const problems = first.error.issues.filter((issue) => issue.code !== "unrecognized_keys");
  if (problems.length > 0) {
    throw new ConfigError(
      problems.map((issue) => `${name}: ${label(dottedPath(issue.path))}: ${issue.message}`).join("; "),
    );
  }
  for (const issue of first.error.issues) {
    if (issue.code !== "unrecognized_keys") continue;
    for (const key of issue.keys) {
      warnings.push(`${name}: ${ignoredKeyWarning(dottedPath([...issue.path, key]))}`);
      deleteKey(rewritten.raw, issue.path, key);
    }
  }
  return { values: foldSingularDefinitions(configSourceSchema.parse(rewritten.raw)), warnings };
}

/** `service`/`check` join `services`/`checks` within their source, so definitions keep the order of sources. */
function foldSingularDefinitions(values: ConfigSourceValues): ConfigSourceValues {
  const { service, check, ...rest } = values;
  return {
    ...rest,
    ...(service || rest.services ? { services: [...(rest.services ?? []), ...(service ?? [])] } : {}),
    ...(check || rest.checks ? { checks: [...(rest.checks ?? []), ...(check ?? [])] } : {}),
  };
}

/** Removes `key` from the object at `path`, or from each object of a list of repeated blocks there. */
function deleteKey(root: RawObject, path: Path, key: string): void {
  let node: unknown = root;
  for (const step of path)
    node = isObject(node) || Array.isArray(node) ? (node as Record<PropertyKey, unknown>)[step] : undefined;
  for (const target of Array.isArray(node) ? node : [node]) {
    if (isObject(target)) delete target[key];
  }
}

/**
 * Consul's merge of sources, later over earlier: objects merge key by key, lists concatenate (`retry_join`,
 * `services`), anything else is replaced.
 */
export function mergeSources(sources: readonly ConfigSourceValues[]): ConfigSourceValues {
  return sources.reduce<RawObject>(
    (merged, source) => mergeObjects(merged, source),
    {},
  ) as ConfigSourceValues;
}

function mergeObjects(base: RawObject, over: RawObject): RawObject {
  const result: RawObject = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const existing = result[key];
    const merged =
      Array.isArray(existing) && Array.isArray(value)
        ? [...existing, ...value]
        : isObject(existing) && isObject(value)
          ? mergeObjects(existing, value)
          : value;
    Object.defineProperty(result, key, {
      value: merged,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}
