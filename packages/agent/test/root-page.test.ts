import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withRootPage } from "../src/root-page.js";

const api = () => new Response("api", { status: 418 });
const dir = mkdtempSync(join(tmpdir(), "cairn-ui-"));
mkdirSync(join(dir, "assets"));
writeFileSync(
  join(dir, "index.html"),
  '<!doctype html><html><head><script type="module" src="./assets/app-abc123.js"></script></head></html>',
);
writeFileSync(join(dir, "assets", "app-abc123.js"), "console.log(1)");
writeFileSync(join(dir, "favicon.svg"), "<svg/>");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = (enabled: boolean, contentPath = "/ui/") => ({
  nodeName: "n1",
  ui: { enabled, dir, contentPath },
});

describe("GET / on the HTTP port", () => {
  it("with the UI off answers 200 naming the agent, whatever the query, and leaves /ui/ to the API", async () => {
    const fetch = withRootPage(api, config(false));
    for (const url of ["http://agent:8500/", "http://agent:8500", "http://agent:8500/?x=1"]) {
      const res = await fetch(new Request(url));
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/^Cairn Agent \(n1\): UI disabled/);
    }
    expect((await fetch(new Request("http://agent:8500/ui/"))).status).toBe(418);
  });

  it("with the UI on redirects / and the bare content path to the UI", async () => {
    const fetch = withRootPage(api, config(true));
    for (const url of ["http://agent:8500/", "http://agent:8500/ui"]) {
      const res = await fetch(new Request(url));
      expect(res.status).toBe(301);
      expect(res.headers.get("location")).toBe("/ui/");
    }
  });

  it("leaves every other path to the API", async () => {
    const fetch = withRootPage(api, config(true));
    expect((await fetch(new Request("http://agent:8500/v1/agent/self"))).status).toBe(418);
    expect((await fetch(new Request("http://agent:8500/index.html"))).status).toBe(418);
    expect((await fetch(new Request("http://agent:8500/uix"))).status).toBe(418);
  });
});

describe("the web UI under the content path", () => {
  const fetch = withRootPage(api, config(true));

  it("serves index.html uncached, with a <base> for the content path and a CSP", async () => {
    for (const path of ["/ui/", "/ui/index.html", "/ui/services/web", "/ui/kv/a%20b/c?x=1"]) {
      const res = await fetch(new Request(`http://agent:8500${path}`));
      expect(res.status, path).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(await res.text()).toContain('<head><base href="/ui/"><script');
    }
  });

  it("serves hashed assets as immutable for a year, other files uncached", async () => {
    const js = await fetch(new Request("http://agent:8500/ui/assets/app-abc123.js"));
    expect(js.status).toBe(200);
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(await js.text()).toBe("console.log(1)");
    const svg = await fetch(new Request("http://agent:8500/ui/favicon.svg"));
    expect(svg.headers.get("cache-control")).toBe("no-cache");
    const head = await fetch(new Request("http://agent:8500/ui/assets/app-abc123.js", { method: "HEAD" }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("answers 404 for a missing asset or a path escaping the folder, 405 for a write", async () => {
    for (const path of [
      "/ui/assets/app-old.js",
      "/ui/missing.css",
      "/ui/..%2Fsecret",
      "/ui/a/..%2F..%2Fx",
      "/ui/%zz",
    ]) {
      const res = await fetch(new Request(`http://agent:8500${path}`));
      expect(res.status, path).toBe(404);
    }
    expect((await fetch(new Request("http://agent:8500/ui/", { method: "POST" }))).status).toBe(405);
  });

  it("follows ui_config.content_path", async () => {
    const other = withRootPage(api, config(true, "/dash"));
    expect((await other(new Request("http://agent:8500/"))).headers.get("location")).toBe("/dash/");
    const res = await other(new Request("http://agent:8500/dash/nodes"));
    expect(await res.text()).toContain('<base href="/dash/">');
    expect((await other(new Request("http://agent:8500/ui/"))).status).toBe(418);
  });

  it("says how to build the UI when it is not built", async () => {
    const empty = withRootPage(api, {
      nodeName: "n1",
      ui: { enabled: true, dir: join(dir, "nope"), contentPath: "/ui/" },
    });
    const res = await empty(new Request("http://agent:8500/ui/"));
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("npm run build:ui");
  });
});
