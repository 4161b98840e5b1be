import { badRequest } from "../http/errors.js";

const PREFIX = "/v1/kv";

/**
 * The key named by a /v1/kv request URL, fully percent-decoded as Go's URL.Path is (so `a%2Fb` is `a/b`).
 * Empty when the URL names no key.
 */
export function kvPath(url: string): string {
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  const q = url.indexOf("?", pathStart);
  const path = url.slice(pathStart, q < 0 ? undefined : q);
  let rest = path.startsWith(PREFIX) ? path.slice(PREFIX.length) : path;
  if (rest.startsWith("/")) rest = rest.slice(1);
  if (!rest.includes("%")) return rest; // nothing to decode: most keys, and every write's path is read here
  try {
    return decodeURIComponent(rest);
  } catch {
    throw badRequest("Invalid key: malformed percent-encoding");
  }
}
