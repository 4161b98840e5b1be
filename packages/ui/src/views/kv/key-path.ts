/**
 * KV keys in URLs. Each `/`-separated segment is percent-encoded and `/` kept, so a key reads as a path in
 * the address bar. A `.` or `..` segment would be collapsed by the URL parser (browsers treat `%2e%2e` the
 * same), so the `/` next to one is sent as `%2F`: the server decodes the whole path, so the key round-trips.
 */

function isDotSegment(segment: string): boolean {
  return segment === "." || segment === "..";
}

export function encodeKeyPath(key: string): string {
  const segments = key.split("/");
  let out = encodeURIComponent(segments[0] ?? "");
  for (let i = 1; i < segments.length; i++) {
    const prev = segments[i - 1] ?? "";
    const cur = segments[i] ?? "";
    out += (isDotSegment(prev) || isDotSegment(cur) ? "%2F" : "/") + encodeURIComponent(cur);
  }
  return out;
}

/** The key an encoded path names; a malformed escape is kept literally rather than throwing. */
export function decodeKeyPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Whether the URL parser would still collapse this key: only a key that is a single dot segment. */
export function keyUnaddressable(key: string): boolean {
  return isDotSegment(key);
}
