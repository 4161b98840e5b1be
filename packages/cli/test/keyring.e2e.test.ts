// `cairn keyring` against a real dev agent started with -encrypt: list, install, use, remove, and the
// refusals (one action at a time, local-only on lists only, malformed keys) as `consul keyring` answers.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentProcess, freePorts, spawnAgent, stop, waitFor } from "../../../scripts/lib/index.js";
import { cairnInProcess } from "./helpers/cairn.js";

const K1 = randomBytes(32).toString("base64");
const K2 = randomBytes(32).toString("base64");
let agent: AgentProcess;
let env: Record<string, string>;

beforeAll(async () => {
  const [http, server] = (await freePorts(2)) as [number, number];
  agent = spawnAgent({ name: "kr", ports: { http, server }, flags: ["-dev", "-node", "kr", "-encrypt", K1] });
  env = { CAIRN_HTTP_ADDR: `127.0.0.1:${http}` };
  await waitFor(
    "the agent",
    async () => ((await cairnInProcess(["keyring", "-list"], { env })).code === 0 ? true : undefined),
    30_000,
  );
}, 60_000);

afterAll(async () => {
  await stop(agent.process);
});

describe("cairn keyring", () => {
  it("lists, installs, makes primary and removes keys", async () => {
    const listed = await cairnInProcess(["keyring", "-list"], { env });
    expect(listed.stdout).toBe(
      `==> Gathering installed encryption keys...\n\nWAN:\n  ${K1} [1/1]\n\ndc1 (LAN):\n  ${K1} [1/1]\n`,
    );
    expect((await cairnInProcess(["keyring", "-install", K2], { env })).stdout).toBe(
      "==> Installing new gossip encryption key...\n",
    );
    expect((await cairnInProcess(["keyring", "-use", K2], { env })).code).toBe(0);
    const primary = await cairnInProcess(["keyring", "-list-primary"], { env });
    expect(primary.stdout).toContain(`dc1 (LAN):\n  ${K2} [1/1]`);
    expect(primary.stdout).not.toContain(K1);
    const removePrimary = await cairnInProcess(["keyring", "-remove", K2], { env });
    expect(removePrimary.code).toBe(1);
    expect(removePrimary.stderr).toMatch(/error: .*Removing the primary key is not allowed/);
    expect((await cairnInProcess(["keyring", "-remove", K1], { env })).code).toBe(0);
    const local = await cairnInProcess(["keyring", "-list", "-local-only"], { env });
    expect(local.stdout).toContain(`dc1 (LAN):\n  ${K2} [1/1]`);
    expect(local.stdout).not.toContain(K1);
    expect(local.stdout).not.toContain("WAN:");
  });

  it("refuses bad input before anything changes", async () => {
    const two = await cairnInProcess(["keyring", "-list", "-install", K1], { env });
    expect(two).toMatchObject({ code: 1, stderr: "Only a single action is allowed\n" });
    const none = await cairnInProcess(["keyring"], { env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("Usage: cairn keyring");
    const local = await cairnInProcess(["keyring", "-install", K1, "-local-only"], { env });
    expect(local.stderr).toMatch(/local-only can only be set for list requests/);
    const relay = await cairnInProcess(["keyring", "-list", "-relay-factor", "6"], { env });
    expect(relay.stderr).toMatch(/Relay factor must be in range: \[0, 5\]/);
    const bad = await cairnInProcess(["keyring", "-install", "not-a-key"], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/Invalid key/);
    expect((await cairnInProcess(["keyring", "-list"], { env })).stdout).not.toContain("not-a-key");
  });
});
