import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureUiBuilt,
  launchBrowser,
  openUi,
  screenshot,
  type UiBrowser,
} from "../../../../scripts/lib/browser.js";
import { type AgentProcess, AgentScratch, freePorts, http, waitFor } from "../../../../scripts/lib/index.js";

// The Access control view and ACL filtering in Debian's chromium against a real agent with ACLs on and
// default deny: log in with a token whose policy reads only some services and keys and see lists filtered to
// them; a token with no permissions gets an explanation; the management token manages policies and tokens.

const ROOT = "00000000-0000-4000-8000-00000000000a";
const READER = "00000000-0000-4000-8000-00000000000b";
const NOBODY = "00000000-0000-4000-8000-00000000000c";

const scratch = new AgentScratch();
let agent: AgentProcess;
let ui: UiBrowser;

async function call(path: string, method = "GET", body?: unknown, token = ROOT) {
  const res = await http(
    `${agent.url}${path}`,
    method,
    body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    {
      headers: { "X-Consul-Token": token },
    },
  );
  expect(res.status, `${method} ${path}: ${res.text}`).toBe(200);
  return res.text;
}

async function said(page: Page): Promise<string> {
  return (await page.locator("main").textContent()) ?? "";
}

async function expectText(page: Page, text: string | RegExp, timeout = 15_000): Promise<void> {
  try {
    await page.locator("main").getByText(text).first().waitFor({ timeout });
  } catch (err) {
    throw new Error(`${String(text)} not shown; the page says: ${await said(page)}`, { cause: err });
  }
}

beforeAll(async () => {
  await ensureUiBuilt();
  const [httpPort, serverPort] = (await freePorts(2)) as [number, number];
  agent = scratch.spawn({
    name: "acl-ui",
    ports: { http: httpPort, server: serverPort },
    flags: [
      "-dev",
      "-node",
      "acl-ui",
      "-hcl",
      `acl {\n enabled = true\n default_policy = "deny"\n tokens {\n initial_management = "${ROOT}"\n }\n}`,
    ],
    logFile: scratch.path("acl-ui.log"),
  });
  await waitFor(
    "the management token",
    async () =>
      (
        await http(`${agent.url}/v1/acl/token/self`, "GET", undefined, {
          headers: { "X-Consul-Token": ROOT },
        })
      ).status === 200
        ? true
        : undefined,
    30_000,
  );
  await call("/v1/acl/policy", "PUT", {
    Name: "web-and-public",
    Description: "<script>window.__xss=1</script>",
    Rules:
      'service "web" { policy = "read" }\nnode_prefix "" { policy = "read" }\nkey_prefix "public/" { policy = "read" }',
  });
  await call("/v1/acl/token", "PUT", {
    SecretID: READER,
    Description: "reader",
    Policies: [{ Name: "web-and-public" }],
  });
  await call("/v1/acl/token", "PUT", { SecretID: NOBODY, Description: "nobody" });
  for (const [name, port] of [
    ["web", 80],
    ["db", 5432],
  ] as const) {
    await call("/v1/catalog/register", "PUT", {
      Node: "n1",
      Address: "10.0.0.1",
      Service: { Service: name, Port: port },
    });
  }
  await call("/v1/kv/public/motd", "PUT", "hello");
  await call("/v1/kv/secret/password", "PUT", "hunter2");
  ui = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await ui?.close();
  await scratch.dispose();
});

describe("Access control view", () => {
  it("logs in with a token and lists only what it may read", async () => {
    const page = await openUi(ui, agent.url, "/acl");
    await expectText(page, /anonymous token/);
    await page.getByLabel("Token secret ID").fill(READER);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByTestId("logged-in").getByText("web-and-public").waitFor();
    expect(await page.evaluate('localStorage.getItem("cairn.ui.token")')).toBe(READER);
    await screenshot(page, "acl-login-1280");

    await page.goto(`${agent.url}/ui/#/kv/`);
    await page.getByRole("link", { name: "public/", exact: true }).waitFor();
    expect(await page.getByRole("link", { name: "secret/", exact: true }).count()).toBe(0);
    await expectText(page, "only the keys your token may read are listed");

    await page.goto(`${agent.url}/ui/#/services`);
    await page.locator("main").getByRole("link", { name: "web", exact: true }).waitFor();
    expect(await page.locator("main").getByRole("link", { name: "db", exact: true }).count()).toBe(0);
    await screenshot(page, "acl-filtered-services-1280");

    // Its token may not read ACLs: the page says which privilege is missing.
    await page.goto(`${agent.url}/ui/#/acl/tokens`);
    await expectText(page, "Permission denied.");
    await expectText(page, "acl:read");

    await page.goto(`${agent.url}/ui/#/acl`);
    await page.getByRole("button", { name: "Log out" }).click();
    await expectText(page, /anonymous token/);
    expect(await page.evaluate('localStorage.getItem("cairn.ui.token")')).toBeNull();
    await page.close();
  });

  it("explains, rather than showing a blank page, when the token may read nothing", async () => {
    const page = await openUi(ui, agent.url, "/kv/", { token: NOBODY });
    await page.locator("main h1").waitFor();
    // The heading shows first; the explanation once the (filtered, empty) key list has been read.
    await expect
      .poll(() => said(page), { timeout: 15_000 })
      .toMatch(/Permission denied|No keys here that your token may read/);
    const text = await said(page);
    expect(text).not.toContain("secret/");
    await screenshot(page, "acl-nobody-kv-1280");
    await page.goto(`${agent.url}/ui/#/acl/policies`);
    await expectText(page, "Permission denied.");
    await expectText(page, "acl:read");
    await screenshot(page, "acl-nobody-policies-1280");
    await page.close();
  });

  it("creates, edits and deletes a policy with the rules editor, and creates a token for it", async () => {
    const page = await openUi(ui, agent.url, "/acl/policies", { token: ROOT });
    await page
      .getByRole("table", { name: "Policies" })
      .getByRole("link", { name: "web-and-public" })
      .waitFor();
    // A description with HTML is shown as text.
    await expectText(page, "<script>window.__xss=1</script>");
    expect(await page.evaluate("window.__xss")).toBeUndefined();
    await screenshot(page, "acl-policies-1280");

    await page.getByRole("link", { name: "Create a policy" }).click();
    await page.getByLabel("Name", { exact: true }).fill("kv-app");
    await page.getByLabel(/^Rules/).fill('key_prefix "app/" {\n  policy = "write"\n}');
    await page.getByRole("button", { name: "Create" }).click();
    await expectText(page, "Created.");
    const listed = JSON.parse(await call("/v1/acl/policies")) as { ID: string; Name: string }[];
    const made = listed.find((p) => p.Name === "kv-app");
    expect(made).toBeDefined();
    await page.getByRole("link", { name: "Open it" }).click();
    await page.getByLabel("Description", { exact: true }).fill("app keys");
    await page.getByRole("button", { name: "Save" }).click();
    await expectText(page, "Saved.");
    const read = JSON.parse(await call(`/v1/acl/policy/${made?.ID}`)) as {
      Description: string;
      Rules: string;
    };
    expect(read).toMatchObject({
      Description: "app keys",
      Rules: 'key_prefix "app/" {\n  policy = "write"\n}',
    });
    await screenshot(page, "acl-policy-edit-1280");

    // A bad rule is refused with the API's reason.
    await page.getByLabel(/^Rules/).fill('key_prefix "app/" { policy = "sideways" }');
    await page.getByRole("button", { name: "Save" }).click();
    await page.locator(".banner-error").waitFor();

    await page.goto(`${agent.url}/ui/#/acl/tokens?create`);
    await page.getByLabel("Description", { exact: true }).fill("app writer");
    await page.getByLabel(/^Policies/).fill("kv-app");
    await page.getByRole("button", { name: "Create" }).click();
    await expectText(page, "Secret ID:");

    await page.goto(`${agent.url}/ui/#/acl/policies/${made?.ID}`);
    await page.getByRole("button", { name: "Delete this policy…" }).click();
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page.getByRole("table", { name: "Policies" }).waitFor();
    await expect.poll(async () => page.getByRole("link", { name: "kv-app" }).count()).toBe(0);
    const tokens = JSON.parse(await call("/v1/acl/tokens")) as { Description: string }[];
    expect(tokens.some((t) => t.Description === "app writer")).toBe(true);
    await page.close();
  });
});
