// The web UI in a real browser for end-to-end tests and the UI benchmark: Debian's chromium driven by
// playwright-core (no browser download), a fresh profile each launch, screenshots checked to be not blank.

import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { REPO_ROOT } from "./agent.js";
import { sleep } from "./wait.js";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const UI = join(REPO_ROOT, "packages/ui");
/** Screenshots of the e2e tests (gitignored). */
export const UI_TEST_OUTPUT = join(UI, "test-output");

export interface UiBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium headless with a fresh --user-data-dir, removed on close. */
export async function launchBrowser(): Promise<UiBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const profile = mkdtempSync(join(tmpdir(), "cairn-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A page showing the UI of the agent at `agentUrl` at `hash` (`/services/web`), `width` px wide. A token,
 * when given, is stored before the UI loads, as logging in would.
 */
export async function openUi(
  ui: UiBrowser,
  agentUrl: string,
  hash: string,
  options: { width?: number; height?: number; token?: string; colorScheme?: "light" | "dark" } = {},
): Promise<Page> {
  const page = await ui.context.newPage();
  await page.setViewportSize({ width: options.width ?? 1280, height: options.height ?? 900 });
  if (options.colorScheme) await page.emulateMedia({ colorScheme: options.colorScheme });
  if (options.token !== undefined) {
    await page.addInitScript({
      content: `localStorage.setItem("cairn.ui.token", ${JSON.stringify(options.token)});`,
    });
  }
  await page.goto(`${agentUrl}/ui/#${hash}`);
  return page;
}

// Runs in the browser (the repository's typecheck has no DOM types): luminance spread and colour count of a PNG.
const PIXEL_STATS = `async (b64) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const g = canvas.getContext("2d");
  g.drawImage(bitmap, 0, 0);
  const data = g.getImageData(0, 0, bitmap.width, bitmap.height).data;
  let sum = 0, sumSq = 0;
  const colours = new Set();
  for (let i = 0; i < data.length; i += 4) {
    const l = 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2];
    sum += l;
    sumSq += l * l;
    if (colours.size < 1000) colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
  }
  const n = data.length / 4, mean = sum / n;
  return { stddev: Math.sqrt(Math.max(0, sumSq / n - mean * mean)), colours: colours.size };
}`;

/**
 * Saves a full-page screenshot as `<UI_TEST_OUTPUT>/<name>.png` and throws when it is blank: the luminance
 * of its pixels must vary, and more than a handful of colours must appear (decoded in a blank page).
 */
export async function screenshot(
  page: Page,
  name: string,
): Promise<{ path: string; stddev: number; colours: number }> {
  mkdirSync(UI_TEST_OUTPUT, { recursive: true });
  const path = join(UI_TEST_OUTPUT, `${name.replace(/[^\w.-]+/g, "_")}.png`);
  const png = await page.screenshot({ path, fullPage: true });
  const probe = await page.context().newPage();
  try {
    const stats = (await probe.evaluate(`(${PIXEL_STATS})(${JSON.stringify(png.toString("base64"))})`)) as {
      stddev: number;
      colours: number;
    };
    if (stats.stddev < 2 || stats.colours < 8)
      throw new Error(
        `screenshot ${name} looks blank (luminance stddev ${stats.stddev}, ${stats.colours} colours)`,
      );
    return { path, ...stats };
  } finally {
    await probe.close();
  }
}

/**
 * Builds packages/ui when its build is missing or older than a source file, so a test never drives a stale
 * UI; a lock file keeps parallel test files from building at once.
 */
export async function ensureUiBuilt(): Promise<void> {
  const index = join(UI, "dist", "index.html");
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
      const p = join(dir, e.name);
      return Math.max(m, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
    }, 0);
  const stale = () =>
    !existsSync(index) ||
    statSync(index).mtimeMs < Math.max(newest(join(UI, "src")), statSync(join(UI, "index.html")).mtimeMs);
  if (!stale()) return;
  const lock = join(UI, ".build.lock");
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      closeSync(openSync(lock, "wx"));
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${lock} held for two minutes`);
      await sleep(200);
    }
  }
  try {
    if (!stale()) return;
    const run = spawnSync("npm", ["run", "build", "--workspace", "@cairn/ui"], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    if (run.status !== 0) throw new Error(`UI build failed: ${run.stderr || run.stdout}`);
  } finally {
    rmSync(lock, { force: true });
  }
}
