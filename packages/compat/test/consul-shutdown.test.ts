// The npm `consul` client holding blocking queries (plain reads with index/wait and a watch) while the
// agent is told to stop: the agent exits within seconds, and the client sees its requests end (a watch
// reports an error) instead of hanging until the wait runs out. Always a real agent process.

import Consul from "consul";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningAgent, signal, startCairnDev } from "../../../scripts/lib/index.js";

let agent: RunningAgent | undefined;
let consul: Consul | undefined;

afterAll(async () => {
  consul?.destroy();
  await agent?.stop();
});

/** Generous for a loaded test machine: the agent itself takes well under a second. */
const EXIT_WITHIN_MS = 8_000;

describe("consul client: prompt shutdown with blocking queries held", () => {
  it("SIGTERM ends the agent and every held request at once", async () => {
    agent = await startCairnDev("compat-shutdown");
    const client = new Consul({ host: agent.http.host, port: agent.http.port });
    consul = client;
    await client.kv.set("compat/held", "v");
    const item = (await client.kv.get("compat/held")) as { ModifyIndex: number } | undefined;
    const index = String(item?.ModifyIndex);
    expect(item?.ModifyIndex).toBeGreaterThan(0);

    const settled = (p: Promise<unknown>) =>
      p.then(
        () => "answered",
        () => "closed",
      );
    const held = [
      settled(client.kv.get({ key: "compat/held", index, wait: "5m", timeout: 600_000 } as never)),
      settled(client.catalog.service.nodes({ service: "consul", index, wait: "5m" } as never)),
    ];
    const watch = client.watch({
      method: client.health.service,
      options: { service: "nothing-registered", wait: "5m" } as never,
    });
    const watchEnded = new Promise<string>((resolve) => {
      watch.on("error", () => resolve("error"));
      watch.on("end", () => resolve("end"));
    });
    // Let the watch's first answer arrive so that its next request is the held one.
    await new Promise<void>((resolve) => watch.once("change", () => resolve()));
    const early = await Promise.race([Promise.race(held), new Promise((r) => setTimeout(r, 1000))]);
    expect(early).toBeUndefined();

    const started = performance.now();
    expect(signal(agent.process, "SIGTERM")).toBe(true);
    expect(await agent.process.exited).toBe(0);
    expect(performance.now() - started).toBeLessThan(EXIT_WITHIN_MS);
    expect(await Promise.all(held)).toHaveLength(2);
    const ended = await Promise.race([watchEnded, new Promise((r) => setTimeout(() => r("hung"), 5000))]);
    watch.end();
    expect(ended).toBe("error");
  }, 90_000);
});
