import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureUiBuilt,
  launchBrowser,
  openUi,
  screenshot,
  type UiBrowser,
} from "../../../../scripts/lib/browser.js";
import { AgentScratch, freePorts, http, stop, waitFor } from "../../../../scripts/lib/index.js";

// A token without permissions sees why, not a blank page: a -dev agent with ACLs on and default deny.

const ROOT = "5c0ff33e-0000-4000-8000-000000000001";
const scratch = new AgentScratch();
let url: string;
let ui: UiBrowser;

beforeAll(async () => {
  await ensureUiBuilt();
  const [httpPort, server] = (await freePorts(2)) as [number, number];
  const agent = scratch.spawn({
    name: "acl-dev",
    ports: { http: httpPort, server },
    flags: [
      "-dev",
      "-node",
      "acl-dev",
      "-hcl",
      `acl {\n enabled = true\n default_policy = "deny"\n tokens {\n initial_management = "${ROOT}"\n }\n}`,
    ],
  });
  url = agent.url;
  await waitFor(
    "the agent's management token",
    async () =>
      (await http(`${url}/v1/acl/token/self`, "GET", undefined, { headers: { "X-Consul-Token": ROOT } }))
        .status === 200
        ? true
        : undefined,
    60_000,
  );
  ui = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await ui?.close();
  for (const a of scratch.agents) await stop(a.process);
  await scratch.dispose();
});

describe("a token without permissions", () => {
  it("is told which privilege the Cluster view needs, and sees the servers once logged in with one", async () => {
    const page = await openUi(ui, url, "/cluster");
    const denied = page.getByRole("alert").filter({ hasText: "Permission denied" }).first();
    await denied.waitFor({ timeout: 30_000 });
    expect(await denied.textContent()).toContain("operator:read");
    await screenshot(page, "cluster-denied-1280");
    await page.close();

    const root = await openUi(ui, url, "/cluster", { token: ROOT });
    await root.locator("tr[data-leader]").waitFor({ timeout: 30_000 });
    expect(await root.getByRole("alert").count()).toBe(0);
    await root.close();
  }, 120_000);

  it("gets an explanation instead of an empty Services list", async () => {
    const page = await openUi(ui, url, "/services");
    await page.getByText("none that your token may read").waitFor({ timeout: 30_000 });
    await screenshot(page, "services-denied-390");
    await page.close();
  }, 60_000);
});
