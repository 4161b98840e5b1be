// URL building for the API and the UI's own hash routes. Every name goes through encodeURIComponent so that
// spaces, unicode, `%`, `#` and `?` in a service, node or key name round-trip.

/** `/v1/...` with each segment encoded; a segment may hold `/` only through `keyPath`. */
export function v1(...segments: string[]): string {
  return `/v1/${segments.map((s, i) => (i === 0 ? s : encodeURIComponent(s))).join("/")}`;
}

/**
 * A KV key as a path: each `/`-separated part encoded, slashes (also leading, trailing, doubled) kept. A `.`
 * or `..` part would be collapsed by the URL parser (`%2e%2e` too), so a slash next to one goes as `%2F`,
 * which the API decodes back to `/`. Only a key that is `.` or `..` alone cannot be named in a URL.
 */
export function keyPath(key: string): string {
  const parts = key.split("/");
  const dot = (p: string | undefined) => p === "." || p === "..";
  return parts
    .map((p, i) => (i === 0 ? "" : dot(parts[i - 1]) || dot(p) ? "%2F" : "/") + encodeURIComponent(p))
    .join("");
}

/** The query string of a request, leaving out undefined values; "" when there are none. */
export function queryString(query: Readonly<Record<string, string | number | boolean | undefined>>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === false) continue;
    params.append(name, value === true ? "" : String(value));
  }
  const text = params.toString().replace(/=(&|$)/g, "$1");
  return text === "" ? "" : `?${text}`;
}

/** A UI link: `#/services/<name>`, each segment encoded. */
export function href(...segments: string[]): string {
  return `#/${segments.map(encodeURIComponent).join("/")}`;
}
