import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureUiBuilt,
  launchBrowser,
  openUi,
  screenshot,
  type UiBrowser,
} from "../../../../scripts/lib/browser.js";
import { http, type RunningAgent, startCairnDev, waitFor } from "../../../../scripts/lib/index.js";
import { keyPath } from "../../src/api/paths.js";

// The Key/value and Sessions views in Debian's chromium against a real -dev agent: create, edit with a
// conflicting write made through the API between opening and saving (reported, not overwritten), live
// updates, the value view toggle, the lock holder and its session's invalidation, delete of a key and of a
// folder; awkward key names round-trip and HTML in a value is shown as text.

const HTML = '<img src=x onerror="window.__xss=1">';
const ODD_FOLDER = "odd dir ü%#?/";
const ODD_KEY = `${ODD_FOLDER}../x y`;

let agent: RunningAgent;
let ui: UiBrowser;

const kv = (key: string, query = "") => `${agent.url}/v1/kv/${keyPath(key)}${query}`;

async function put(key: string, value: string, query = ""): Promise<string> {
  const res = await http(kv(key, query), "PUT", value);
  expect(res.status, res.text).toBe(200);
  return res.text;
}

async function read(key: string): Promise<{ status: number; value?: string; modifyIndex?: number }> {
  const res = await http(kv(key));
  if (res.status !== 200) return { status: res.status };
  const [pair] = JSON.parse(res.text) as { Value: string | null; ModifyIndex: number }[];
  return {
    status: 200,
    value: Buffer.from(pair?.Value ?? "", "base64").toString("utf8"),
    modifyIndex: pair?.ModifyIndex,
  };
}

/** The page's main text, for failure messages. */
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
  agent = await startCairnDev("kv-ui");
  ui = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await ui?.close();
  await agent?.stop();
});

describe("Key/value view", () => {
  it("creates a key with an awkward name through the form; the name round-trips and HTML stays text", async () => {
    const page = await openUi(ui, agent.url, "/kv/");
    await expectText(page, "No keys yet.");
    await page.getByLabel(/Key name/).fill(ODD_KEY);
    await page.getByLabel("Value").fill(HTML);
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("heading", { level: 1, name: ODD_KEY, exact: true }).waitFor();
    // The heading comes with the route; the value follows once the key's read answers.
    await expect.poll(() => page.locator("textarea").inputValue()).toBe(HTML);
    // Stored under exactly that key, with exactly that value.
    expect(await read(ODD_KEY)).toMatchObject({ status: 200, value: HTML });
    expect(await page.locator("main img").count()).toBe(0);
    expect(await page.evaluate("window.__xss")).toBeUndefined();
    await screenshot(page, "kv-key-1280");
    const narrow = await openUi(ui, agent.url, `/kv/${keyPath(ODD_KEY)}`, {
      width: 390,
      colorScheme: "dark",
    });
    await expect.poll(() => narrow.locator("textarea").inputValue()).toBe(HTML);
    await screenshot(narrow, "kv-key-390-dark");
    await narrow.close();

    // The folders on the way are links that open them.
    await page
      .getByRole("navigation", { name: "Folders" })
      .getByRole("link", { name: "odd dir ü%#?" })
      .click();
    await page.getByRole("heading", { level: 1, name: ODD_FOLDER, exact: true }).waitFor();
    await page.getByRole("link", { name: "../", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: `${ODD_FOLDER}../`, exact: true }).waitFor();
    await page.getByRole("link", { name: "x y", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: ODD_KEY, exact: true }).waitFor();
    await page.close();
  });

  it("reports a write made between opening and saving, and does not overwrite it", async () => {
    await put("app/config", "v1");
    const page = await openUi(ui, agent.url, `/kv/${keyPath("app/config")}`);
    const editor = page.locator("textarea");
    await expect.poll(() => page.locator("textarea").inputValue()).toBe("v1");
    await editor.fill("mine");
    // Somebody else writes after the page opened the key.
    await put("app/config", "theirs");
    await page.getByRole("button", { name: "Save" }).click();
    await expectText(page, /changed since you opened it, so your edit was not saved/);
    expect((await read("app/config")).value).toBe("theirs");
    expect(await editor.inputValue()).toBe("mine");
    await screenshot(page, "kv-conflict-1280");

    // Reload shows their value; a save from there is accepted.
    await page.getByRole("button", { name: "Reload" }).first().click();
    await expect.poll(() => page.locator("textarea").inputValue()).toBe("theirs");
    await editor.fill('{"port":8080,"tags":["a","b c"]}');
    await page.getByRole("button", { name: "Save" }).click();
    await expectText(page, "Saved.");
    expect((await read("app/config")).value).toBe('{"port":8080,"tags":["a","b c"]}');

    // The JSON/YAML/HCL toggle renders the value.
    await page.getByLabel("YAML").check();
    await expect
      .poll(() => page.getByTestId("kv-rendered").textContent())
      .toBe('port: 8080\ntags:\n  - a\n  - "b c"');
    await page.getByLabel("HCL").check();
    await expect.poll(() => page.getByTestId("kv-rendered").textContent()).toContain("port = 8080");
    await page.getByLabel("Text").check();
    await page.close();
  });

  it("follows changes live while the value is not being edited", async () => {
    await put("app/live", "one");
    const page = await openUi(ui, agent.url, `/kv/${keyPath("app/live")}`);
    await expect.poll(() => page.locator("textarea").inputValue()).toBe("one");
    await put("app/live", "two");
    await expect.poll(() => page.locator("textarea").inputValue()).toBe("two");
    await page.close();
  });

  it("shows the lock holder, links to its session, and invalidating it releases the lock", async () => {
    const created = await http(
      `${agent.url}/v1/session/create`,
      "PUT",
      JSON.stringify({ Name: "leader <b>election</b>", Node: "kv-ui" }),
    );
    expect(created.status, created.text).toBe(200);
    const { ID } = JSON.parse(created.text) as { ID: string };
    expect(await put("app/lock", "held", `?acquire=${ID}`)).toBe("true");
    const page = await openUi(ui, agent.url, `/kv/${keyPath("app/lock")}`);
    const holder = page.getByTestId("lock-holder");
    // The session's ID shows at once; its name and node follow when the session info has been read.
    await holder.getByText("leader <b>election</b>", { exact: false }).waitFor();
    expect(await holder.textContent()).toContain(ID);
    await holder.getByRole("link").click();
    await page.getByRole("heading", { level: 1, name: "Sessions of kv-ui" }).waitFor();
    await expectText(page, "leader <b>election</b>");
    await screenshot(page, "sessions-1280");
    await page.getByRole("button", { name: "Invalidate…" }).click();
    await page.getByRole("button", { name: "Invalidate", exact: true }).click();
    await expectText(page, "This node holds no sessions.");
    await waitFor("the lock to be released", async () => {
      const res = await http(kv("app/lock"));
      return (JSON.parse(res.text) as { Session?: string }[])[0]?.Session === undefined ? true : undefined;
    });
    await page.close();
  });

  it("deletes a key, and a whole folder", async () => {
    await put("gone/a", "1");
    await put("gone/b/c", "2");
    const page = await openUi(ui, agent.url, `/kv/${keyPath("gone/a")}`);
    await expect.poll(() => page.locator("textarea").inputValue()).toBe("1");
    await page.getByRole("button", { name: "Delete this key…" }).click();
    await page.getByRole("button", { name: "Delete key" }).click();
    await page.getByRole("heading", { level: 1, name: "gone/", exact: true }).waitFor();
    expect((await read("gone/a")).status).toBe(404);
    await page.getByRole("link", { name: "b/", exact: true }).waitFor();
    await screenshot(page, "kv-folder-1280");
    await page.getByRole("button", { name: "Delete this folder…" }).click();
    await page.getByRole("button", { name: "Delete folder" }).click();
    await page.getByRole("heading", { level: 1, name: "Key/value", exact: true }).waitFor();
    expect((await http(`${agent.url}/v1/kv/gone/?recurse`)).status).toBe(404);
    // The root still lists the other folders, live.
    await page.getByRole("link", { name: "app/", exact: true }).waitFor();
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "kv-root-390");
    await page.close();
  });

  it("refuses to create over an existing key", async () => {
    const page = await openUi(ui, agent.url, `/kv/${keyPath("app/")}`);
    await page.getByLabel(/Key name/).fill("config");
    await page.getByLabel("Value").fill("clobber");
    await page.getByRole("button", { name: "Create key" }).click();
    await expectText(page, "A key with this name already exists:");
    expect((await read("app/config")).value).not.toBe("clobber");
    await page.close();
  });
});
