import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureUiBuilt,
  launchBrowser,
  openUi,
  screenshot,
  type UiBrowser,
} from "../../../../scripts/lib/browser.js";
import { AgentScratch, type Federation, http, startFederation } from "../../../../scripts/lib/index.js";

// The datacenter selector against two WAN-joined datacenters: it appears once there are two, and choosing
// the other one shows that datacenter's catalog (read through `?dc=` forwarding).

const scratch = new AgentScratch();
let fed: Federation;
let ui: UiBrowser;

beforeAll(async () => {
  await ensureUiBuilt();
  fed = await startFederation(scratch.root, {
    datacenters: ["dc1", "dc2"],
    servers: 1,
    clients: false,
    flags: () => ["-ui"],
  });
  const res = await http(
    `${fed.dc("dc2").servers[0]!.url}/v1/catalog/register`,
    "PUT",
    JSON.stringify({ Node: "far", Address: "10.2.0.1", Service: { Service: "only-in-dc2", Port: 80 } }),
  );
  expect(res.status, res.text).toBe(200);
  ui = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await ui?.close();
  await fed?.stop();
  await scratch.dispose();
});

describe("datacenter selector", { timeout: 60_000 }, () => {
  it("lists both datacenters and shows the other one's services when chosen", async () => {
    const page = await openUi(ui, fed.dc("dc1").servers[0]!.url, "/services");
    const select = page.getByLabel("Datacenter");
    await select.waitFor({ timeout: 30_000 });
    expect(await select.locator("option").allTextContents()).toEqual(expect.arrayContaining(["dc1", "dc2"]));
    const remote = page.getByRole("link", { name: "only-in-dc2", exact: true });
    expect(await remote.count()).toBe(0);
    await select.selectOption("dc2");
    await remote.waitFor({ timeout: 30_000 });
    await screenshot(page, "datacenter-dc2-1280");
    await page.close();
  });
});
