import { describe, expect, it } from "vitest";
import { withRootPage } from "../src/root-page.js";

const api = () => new Response("api", { status: 418 });
const config = (enabled: boolean) => ({
  nodeName: "n1",
  ui: { enabled, dir: undefined, contentPath: "/ui/" },
});

describe("GET / on the HTTP port", () => {
  it("with the UI off answers 200 naming the agent, whatever the query", async () => {
    const fetch = withRootPage(api, config(false));
    for (const url of ["http://agent:8500/", "http://agent:8500", "http://agent:8500/?x=1"]) {
      const res = await fetch(new Request(url));
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/^Cairn Agent \(n1\): UI disabled/);
    }
    expect((await fetch(new Request("http://agent:8500/ui/"))).status).toBe(418);
  });

  it("with the UI on redirects to the UI path, which says there is no web UI", async () => {
    const fetch = withRootPage(api, config(true));
    const res = await fetch(new Request("http://agent:8500/"));
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("/ui/");
    expect((await fetch(new Request("http://agent:8500/ui/"))).status).toBe(200);
    expect((await fetch(new Request("http://agent:8500/ui"))).status).toBe(200);
  });

  it("leaves every other path to the API", async () => {
    const fetch = withRootPage(api, config(true));
    expect((await fetch(new Request("http://agent:8500/v1/agent/self"))).status).toBe(418);
    expect((await fetch(new Request("http://agent:8500/index.html"))).status).toBe(418);
  });
});
