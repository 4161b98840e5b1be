import { compileFilter, FilterError, type FilterPredicate, type FilterSchema } from "@cairn/discovery";
import { badRequest } from "../http/errors.js";

/**
 * The query parameters the catalog and health reads share, read from the raw query string (`tag` and
 * `node-meta` repeat, which the shared Query getter does not expose). Pure; bad values are 400s.
 */

/** The query string of a request URL, for the repeatable parameters. */
export function searchParams(url: string): URLSearchParams {
  const q = url.indexOf("?");
  return new URLSearchParams(q < 0 ? "" : url.slice(q + 1));
}

/** `node-meta=key:value` (repeatable; all must match). A value without a colon filters on an empty value. */
export function parseNodeMeta(search: URLSearchParams): ReadonlyMap<string, string> | undefined {
  const filters = search.getAll("node-meta");
  if (filters.length === 0) return undefined;
  const out = new Map<string, string>();
  for (const f of filters) {
    const colon = f.indexOf(":");
    out.set(colon < 0 ? f : f.slice(0, colon), colon < 0 ? "" : f.slice(colon + 1));
  }
  return out;
}

export function metaMatches(
  meta: Readonly<Record<string, string>>,
  filters: ReadonlyMap<string, string> | undefined,
): boolean {
  if (filters === undefined) return true;
  for (const [key, value] of filters) {
    if (!Object.hasOwn(meta, key) || meta[key] !== value) return false;
  }
  return true;
}

/** `filter=<expression>` compiled against the endpoint's record shape; a bad expression is a 400 naming why. */
export function parseFilterParam(search: URLSearchParams, schema: FilterSchema): FilterPredicate | undefined {
  const expression = search.get("filter");
  if (expression === null || expression === "") return undefined;
  try {
    return compileFilter(expression, schema);
  } catch (err) {
    if (err instanceof FilterError)
      throw badRequest(`Failed to create boolean expression evaluator: ${err.message}`);
    throw err;
  }
}

const TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/** `?passing`: present without a value means true; otherwise Go's strconv.ParseBool. */
export function parsePassing(search: URLSearchParams): boolean {
  const raw = search.get("passing");
  if (raw === null) return false;
  if (raw === "" || TRUE.has(raw)) return true;
  if (FALSE.has(raw)) return false;
  throw badRequest("Invalid value for ?passing");
}

/** `near=<node>`; `_agent` names the node of the agent serving the request. */
export function parseNear(search: URLSearchParams, agentNode: string): string | undefined {
  const near = search.get("near");
  if (near === null || near === "") return undefined;
  return near === "_agent" ? agentNode : near;
}
