import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, extname, join, sep } from "node:path";

// The web UI's files (packages/ui's build, or `ui_config.dir`) as the agent serves them under the content
// path: hashed assets cached for a year, index.html never cached and answered for every other path under it
// (the UI routes on the client), with a <base> so relative asset URLs work under any content path.

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".map": "application/json",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

const IMMUTABLE = "public, max-age=31536000, immutable";
// The UI never needs inline script or another origin; this also keeps an injected string inert.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'self'; frame-ancestors 'none'";

/** Where packages/ui's build lands. */
export function builtUiDir(): string {
  return join(dirname(createRequire(import.meta.url).resolve("@cairn/ui/package.json")), "dist");
}

/** `/ui` or `ui/` as `/ui/`. */
export function normalizeContentPath(path: string): string {
  const withLead = path.startsWith("/") ? path : `/${path}`;
  return withLead.endsWith("/") ? withLead : `${withLead}/`;
}

/**
 * The answer to `method` on `path` (decoded is not assumed), which lies under `contentPath`. Reads from disk
 * on each request so a rebuilt UI is served without a restart; the files are few and small.
 */
export async function serveUi(
  dir: string,
  contentPath: string,
  path: string,
  method: string,
): Promise<Response> {
  if (method !== "GET" && method !== "HEAD")
    return new Response("Method not allowed\n", { status: 405, headers: { Allow: "GET, HEAD" } });
  let rel: string;
  try {
    rel = decodeURIComponent(path.slice(contentPath.length));
  } catch {
    return notFound();
  }
  const parts = rel.split("/");
  if (parts.some((p) => p === ".." || p.includes("\\") || p.includes("\0"))) return notFound();
  const body = (r: Response) => (method === "HEAD" ? new Response(null, r) : r);
  if (rel !== "" && rel !== "index.html") {
    const file = await readIfFile(join(dir, ...parts));
    if (file) {
      const hashed = rel.startsWith("assets/");
      return body(
        new Response(new Uint8Array(file), {
          headers: {
            "Content-Type": TYPES[extname(rel)] ?? "application/octet-stream",
            "Cache-Control": hashed ? IMMUTABLE : "no-cache",
            "X-Content-Type-Options": "nosniff",
          },
        }),
      );
    }
    // A missing asset is a 404, never the page: a stale page asking for an old hash must not parse HTML as JS.
    if (rel.startsWith("assets/") || extname(rel) !== "") return notFound();
  }
  const index = await readIfFile(join(dir, "index.html"));
  if (!index)
    return new Response(
      `The web UI is not built (no ${join(dir, "index.html")}): run \`npm run build:ui\`.\n`,
      { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-cache" } },
    );
  const html = index.toString("utf8").replace(/<head>/i, `<head><base href="${escapeAttr(contentPath)}">`);
  return body(
    new Response(html, {
      headers: {
        "Content-Type": TYPES[".html"]!,
        "Cache-Control": "no-cache",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": CSP,
        "X-Frame-Options": "DENY",
      },
    }),
  );
}

async function readIfFile(path: string): Promise<Buffer | undefined> {
  if (path.endsWith(sep)) return undefined;
  try {
    return await readFile(path);
  } catch {
    return undefined;
  }
}

function notFound(): Response {
  return new Response("Not found\n", {
    status: 404,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
}

function escapeAttr(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}
