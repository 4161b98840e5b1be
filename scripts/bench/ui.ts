// The web UI: gzipped size of what it ships, and time to first render of the Services view with 1,000
// services in Debian's chromium against a -dev agent (cold: first load of a fresh profile; warm: assets
// cached, as on every later visit). `node --import tsx scripts/bench/ui.ts [--runs 5]`

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { ensureUiBuilt, launchBrowser, openUi } from "../lib/browser.js";
import { registerServices } from "../lib/catalog-fill.js";
import { REPO_ROOT, startCairnDev, waitFor } from "../lib/index.js";
import { useBuiltAgents } from "./lib/built.js";
import { median } from "./lib/median.js";
import { markdownTable } from "./lib/table.js";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "5" }, services: { type: "string", default: "1000" } },
});
const RUNS = Number(values.runs);
const SERVICES = Number(values.services);

await ensureUiBuilt();
useBuiltAgents();
const dist = join(REPO_ROOT, "packages/ui/dist");
const assets = readdirSync(join(dist, "assets"));
const gz = (file: string) => gzipSync(readFileSync(join(dist, "assets", file)), { level: 9 }).length;
const sum = (files: string[]) => files.reduce((n, f) => n + gz(f), 0);
const js = assets.filter((f) => f.endsWith(".js"));
const css = assets.filter((f) => f.endsWith(".css"));
// What the Services view loads: the entry chunk, its CSS, and the chunks the view imports (named after them).
const html = readFileSync(join(dist, "index.html"), "utf8");
const entry = [...html.matchAll(/assets\/([^"]+\.(?:js|css))/g)].map((m) => m[1]!);
const servicesChunks = js.filter((f) => /^(services|health|list|filter)-/.test(f));
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

console.error(`ui bench: ${SERVICES} services, ${RUNS} runs`);
const agent = await startCairnDev("bench");
const browser = await launchBrowser();
const times: { cold: number; warm: number[] } = { cold: Number.NaN, warm: [] };
try {
  await registerServices(agent.url, "bench", SERVICES);
  const total = SERVICES + 1; // and the "consul" service
  // Recorded in the page by an init script (the UI's CSP forbids Playwright's string predicates).
  const watcher = `new MutationObserver((_, observer) => {
    const el = document.querySelector(".pager span, .pager-count");
    if (el && el.textContent.includes("of ${total}")) { window.__firstRender = performance.now(); observer.disconnect(); }
  }).observe(document, { childList: true, subtree: true, characterData: true });`;
  await browser.context.addInitScript({
    content: `document.addEventListener("DOMContentLoaded", () => { ${watcher} });`,
  });
  for (let run = 0; run <= RUNS; run++) {
    const page = await openUi(browser, agent.url, "/services");
    const ms = await waitFor(
      "the Services view's first render",
      async () => {
        const t = await page.evaluate("window.__firstRender");
        return typeof t === "number" ? t : undefined;
      },
      60_000,
      50,
    );
    if (run === 0) times.cold = ms;
    else times.warm.push(ms);
    await page.close();
  }
} finally {
  await browser.close();
  await agent.stop();
}

console.log(
  markdownTable(
    ["what", "gzipped"],
    [
      ["all JS", kb(sum(js))],
      ["all CSS", kb(sum(css))],
      ["Services view (entry + its chunks + CSS)", kb(sum([...new Set([...entry, ...servicesChunks])]))],
    ],
  ),
);
console.log();
console.log(
  markdownTable(
    ["first render of Services, 1,000 services", "ms"],
    [
      ["cold (fresh profile)", times.cold.toFixed(0)],
      [`warm (median of ${RUNS})`, median(times.warm).toFixed(0)],
      ["warm (max)", Math.max(...times.warm).toFixed(0)],
    ],
  ),
);
