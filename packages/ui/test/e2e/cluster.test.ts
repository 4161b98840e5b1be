import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureUiBuilt,
  launchBrowser,
  openUi,
  screenshot,
  type UiBrowser,
} from "../../../../scripts/lib/browser.js";
import {
  AgentScratch,
  awaitLeader,
  type ServerCluster,
  startCairnCluster,
  stop,
} from "../../../../scripts/lib/index.js";

// The Cluster view of three servers in Debian's chromium: the leader shown, then a new one after the leader
// stops, without a reload (the view re-reads the Raft configuration when the servers' serfHealth changes).

const scratch = new AgentScratch();
let cluster: ServerCluster;
let ui: UiBrowser;

beforeAll(async () => {
  await ensureUiBuilt();
  cluster = await startCairnCluster(3, scratch.root, { flags: ["-ui"] });
  ui = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await ui?.close();
  await cluster?.stop();
  await scratch.dispose();
});

describe("Cluster view", () => {
  it("shows the leader, and the new leader after the leader stops", async () => {
    const old = cluster.leader;
    const viewer = cluster.servers.find((s) => s !== old)!;
    const page = await openUi(ui, viewer.url, "/cluster");
    const leaderCell = page.locator("tr[data-leader] td").first();
    const leaderIs = async (name: string, timeout: number) => {
      try {
        await page.locator("tr[data-leader] td", { hasText: name }).first().waitFor({ timeout });
      } catch (err) {
        await screenshot(page, "cluster-failure").catch(() => {});
        throw new Error(`leader ${name} not shown; the page says: ${(await page.content()).slice(0, 4000)}`, {
          cause: err,
        });
      }
    };
    await leaderIs(old.name, 30_000);
    await page.getByRole("table", { name: "Gossip members" }).getByText("cairn3").waitFor();
    await screenshot(page, "cluster-3-servers-1280");

    await stop(old.process);
    const rest = cluster.servers.filter((s) => s !== old);
    const next = await awaitLeader(rest, 60_000);
    expect(next).not.toBe(old);
    await leaderIs(next.name, 60_000);
    expect(await leaderCell.textContent()).toBe(next.name);
    await screenshot(page, "cluster-new-leader-1280");
    await page.close();
  }, 180_000);
});
