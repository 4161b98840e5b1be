import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureUiBuilt,
  launchBrowser,
  openUi,
  screenshot,
  type UiBrowser,
} from "../../../../scripts/lib/browser.js";
import { http, type RunningAgent, startCairnDev } from "../../../../scripts/lib/index.js";

// Config entries, prepared queries (read, execute) and the discovery chain graph in Debian's chromium
// against a real -dev agent (ACLs off, which the Access control view says plainly).

let agent: RunningAgent;
let ui: UiBrowser;
let queryId = "";

async function call(path: string, method = "GET", body?: unknown): Promise<string> {
  const res = await http(
    `${agent.url}${path}`,
    method,
    body === undefined ? undefined : JSON.stringify(body),
  );
  expect(res.status, `${method} ${path}: ${res.text}`).toBe(200);
  return res.text;
}

async function expectText(page: Page, text: string | RegExp, timeout = 15_000): Promise<void> {
  try {
    await page.locator("main").getByText(text).first().waitFor({ timeout });
  } catch (err) {
    throw new Error(`${String(text)} not shown; the page says: ${await page.locator("main").textContent()}`, {
      cause: err,
    });
  }
}

beforeAll(async () => {
  await ensureUiBuilt();
  agent = await startCairnDev("chain-ui");
  for (const [id, version] of [
    ["web-1", "v1"],
    ["web-2", "v2"],
  ] as const) {
    await call("/v1/catalog/register", "PUT", {
      Node: "n1",
      Address: "10.0.0.1",
      Service: { ID: id, Service: "web", Port: 8080, Meta: { version } },
    });
  }
  await call("/v1/config", "PUT", { Kind: "service-defaults", Name: "web", Protocol: "http" });
  await call("/v1/config", "PUT", { Kind: "service-defaults", Name: "admin", Protocol: "http" });
  await call("/v1/config", "PUT", {
    Kind: "service-resolver",
    Name: "web",
    DefaultSubset: "v1",
    Subsets: {
      v1: { Filter: 'Service.Meta.version == "v1"' },
      v2: { Filter: 'Service.Meta.version == "v2"' },
    },
  });
  await call("/v1/config", "PUT", {
    Kind: "service-splitter",
    Name: "web",
    Splits: [
      { Weight: 90, ServiceSubset: "v1" },
      { Weight: 10, ServiceSubset: "v2" },
    ],
  });
  await call("/v1/config", "PUT", {
    Kind: "service-router",
    Name: "web",
    Routes: [{ Match: { HTTP: { PathPrefix: "/admin" } }, Destination: { Service: "admin" } }],
  });
  queryId = (
    JSON.parse(await call("/v1/query", "POST", { Name: "web-q", Service: { Service: "web" } })) as {
      ID: string;
    }
  ).ID;
  ui = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await ui?.close();
  await agent?.stop();
});

describe("Config entries, prepared queries and the discovery chain", () => {
  it("lists config entries by kind and shows one as JSON", async () => {
    const page = await openUi(ui, agent.url, "/config");
    await page.getByRole("link", { name: "service-resolver" }).click();
    await page.getByRole("link", { name: "web", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "web" }).waitFor();
    await expectText(page, /"DefaultSubset": "v1"/);
    await screenshot(page, "config-entry-1280");
    await page.close();
  });

  it("reads a prepared query and executes it", async () => {
    const page = await openUi(ui, agent.url, "/queries");
    await page.getByRole("link", { name: "web-q" }).click();
    await page.getByRole("heading", { level: 1, name: "web-q" }).waitFor();
    await expectText(page, queryId);
    await page.getByRole("button", { name: "Execute" }).click();
    await expectText(page, "Results: 2 instances of web in dc1");
    const rows = page.getByRole("table", { name: "Query results" }).locator("tbody tr");
    expect(await rows.count()).toBe(2);
    await screenshot(page, "query-execute-1280");
    await page.close();
  });

  it("draws the chain as router, splitter, resolver and target boxes, and follows changes live", async () => {
    const page = await openUi(ui, agent.url, "/chain/web");
    const graph = page.getByRole("img", { name: "Discovery chain of web" });
    await graph.waitFor();
    // A string, as the repository's typecheck has no DOM types.
    const kinds = async () =>
      (await page.evaluate(
        `[...document.querySelectorAll(".chain g[class^='box-']")].map((g) => g.getAttribute("class"))`,
      )) as string[];
    await expect.poll(kinds).toContain("box-router");
    const drawn = await kinds();
    expect(drawn).toContain("box-splitter");
    expect(drawn.filter((k) => k === "box-resolver").length).toBeGreaterThanOrEqual(3);
    expect(drawn).toContain("box-target");
    // The steps are also listed as text for screen readers.
    await page
      .getByRole("list", { name: "Chain steps" })
      .getByText(/→ .* \(split: 90%\)/)
      .waitFor({ state: "attached" });
    await screenshot(page, "chain-1280");

    // Without the router and splitter, the chain is the resolver alone: the graph follows without a reload.
    await call("/v1/config/service-router/web", "DELETE");
    await call("/v1/config/service-splitter/web", "DELETE");
    // Each delete is its own change: the graph may be drawn once between them (router gone, splitter not yet).
    await expect.poll(kinds).not.toContain("box-router");
    await expect.poll(kinds).not.toContain("box-splitter");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "chain-390");
    await page.close();
  });

  it("says plainly that ACLs are disabled", async () => {
    const page = await openUi(ui, agent.url, "/acl");
    await page.getByTestId("acls-disabled").waitFor();
    await page.goto(`${agent.url}/ui/#/acl/tokens`);
    await page.getByTestId("acls-disabled").waitFor();
    await screenshot(page, "acl-disabled-1280");
    await page.close();
  });
});
