// Hash routes: `#/services/web%20api?filter=x`. Patterns name segments with `:name` and a last rest part with
// `*name` (a KV key, slashes kept). Segments are decoded here, once.

export type Params = Record<string, string>;

export interface Location {
  path: string[];
  query: URLSearchParams;
}

/** The decoded path segments and query of a location hash ("" and "#" are the root). */
export function parseHash(hash: string): Location {
  const text = hash.replace(/^#/, "");
  const q = text.indexOf("?");
  const pathText = q < 0 ? text : text.slice(0, q);
  const query = new URLSearchParams(q < 0 ? "" : text.slice(q + 1));
  const raw = pathText.replace(/^\//, "");
  const path = raw === "" ? [] : raw.split("/").map(decodeSegment);
  return { path, query };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The params of `path` under `pattern`, or undefined when it does not match. */
export function matchRoute(pattern: string, path: readonly string[]): Params | undefined {
  const parts = pattern
    .replace(/^\//, "")
    .split("/")
    .filter((p) => p !== "");
  const params: Params = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.startsWith("*")) {
      params[part.slice(1)] = path.slice(i).join("/");
      return params;
    }
    const segment = path[i];
    if (segment === undefined) return undefined;
    if (part.startsWith(":")) params[part.slice(1)] = segment;
    else if (part !== segment) return undefined;
  }
  return path.length === parts.length ? params : undefined;
}
