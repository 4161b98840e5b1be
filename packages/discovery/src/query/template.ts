import { RE2JS } from "re2js";
import { evaluateHil, HilError, type HilTemplate, type HilValue, parseHil } from "./hil.js";
import {
  type PreparedQueryDefinition,
  type QuerySource,
  type ServiceQuery,
  TEMPLATE_TYPE_NAME_PREFIX_MATCH,
} from "./types.js";

/**
 * Prepared query templates (Consul's name_prefix_match): every string inside Service, at any depth (list
 * items and map values too, never map keys), is an interpolation. Compiling parses them all and the RE2
 * Regexp once, then renders the template for its own name, so a template that cannot render is refused
 * when it is stored rather than when it is looked up.
 */

export class TemplateError extends Error {
  override readonly name = "TemplateError";
}

export interface CompiledTemplate {
  readonly query: PreparedQueryDefinition;
  /** Path of each string in Service (`.Tags[0]`, `.NodeMeta[rack]`) -> its parsed form. */
  readonly trees: ReadonlyMap<string, HilTemplate>;
  readonly re: RE2JS | undefined;
}

/** Service fields that are Go maps (their paths index by key, as Consul's error messages show them). */
const MAP_FIELDS: ReadonlySet<string> = new Set(["NodeMeta", "ServiceMeta"]);

/** Rebuilds `value` with every string replaced by `fn(string, path)`; other leaves are kept. */
function mapStrings(
  value: unknown,
  path: string,
  fn: (s: string, path: string) => string,
  isMap = false,
): unknown {
  if (typeof value === "string") return fn(value, path);
  if (Array.isArray(value)) return value.map((item, i) => mapStrings(item, `${path}[${i}]`, fn));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      out[key] = isMap
        ? mapStrings(v, `${path}[${key}]`, fn)
        : mapStrings(v, `${path}.${key}`, fn, MAP_FIELDS.has(key));
    }
    return out;
  }
  return value;
}

export function compileTemplate(query: PreparedQueryDefinition): CompiledTemplate {
  if (query.Template.Type !== TEMPLATE_TYPE_NAME_PREFIX_MATCH) {
    throw new TemplateError(`Bad Template.Type '${query.Template.Type}'`);
  }
  const trees = new Map<string, HilTemplate>();
  mapStrings(query.Service, "", (s, path) => {
    try {
      trees.set(path, parseHil(s));
    } catch (err) {
      if (err instanceof HilError)
        throw new TemplateError(`Bad format '${s}' in Service${path}: ${err.message}`);
      throw err;
    }
    return s;
  });
  let re: RE2JS | undefined;
  if (query.Template.Regexp !== "") {
    try {
      re = RE2JS.compile(query.Template.Regexp);
    } catch (err) {
      throw new TemplateError(`Bad Regexp: ${(err as Error).message}`);
    }
  }
  const compiled: CompiledTemplate = { query, trees, re };
  renderTemplate(compiled, query.Name, { segment: "" });
  return compiled;
}

/** Submatches of the Regexp over the whole name (unanchored unless the pattern anchors itself), as Go's FindStringSubmatch. */
function submatches(re: RE2JS | undefined, name: string): string[] {
  if (re === undefined) return [];
  const m = re.matcher(name);
  if (!m.find()) return [];
  const out: string[] = [];
  for (let i = 0; i <= m.groupCount(); i++) out.push(m.group(i) ?? "");
  return out;
}

/** The template rendered for a looked-up name. Throws TemplateError when an interpolation cannot evaluate. */
export function renderTemplate(
  ct: CompiledTemplate,
  name: string,
  source: QuerySource,
): PreparedQueryDefinition {
  const matches = submatches(ct.re, name);
  const prefix = ct.query.Name;
  const scope = {
    variables: {
      "name.full": name,
      "name.prefix": prefix,
      "name.suffix": name.startsWith(prefix) ? name.slice(prefix.length) : name,
      "agent.segment": source.segment,
    },
    functions: {
      // Never fails at run time: anything but a valid index is "".
      match: (args: readonly HilValue[]) => {
        const [index] = args;
        if (args.length !== 1 || index?.type !== "int") {
          throw new HilError("match: expects a single int argument");
        }
        return matches[index.value] ?? "";
      },
    },
  };
  const service = mapStrings(ct.query.Service, "", (s, path) => {
    const tree = ct.trees.get(path);
    if (tree === undefined) return s;
    let result: HilValue;
    try {
      result = evaluateHil(tree, scope);
    } catch (err) {
      if (err instanceof HilError)
        throw new TemplateError(`Bad evaluation for '${s}' in Service${path}: ${err.message}`);
      throw err;
    }
    if (result.type !== "string")
      throw new TemplateError(`Expected Service${path} field to be a string, got TypeInt`);
    return result.value;
  }) as ServiceQuery;
  const tags =
    ct.query.Template.RemoveEmptyTags && service.Tags ? service.Tags.filter((t) => t !== "") : service.Tags;
  return { ...ct.query, Service: { ...service, Tags: tags } };
}
