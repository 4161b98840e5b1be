// The gossip keyring of in-process membership pools: where the keys come from at start (the data dir's
// keyring file over -encrypt), a corrupt file refusing the start, and local-only answers.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startMember, stopAll, tempDir } from "./harness.js";

afterEach(stopAll);

const key = () => randomBytes(32).toString("base64");

describe("membership keyring", () => {
  it("seeds the keyring file from -encrypt, and a later start takes the file's keys over -encrypt", async () => {
    const [k1, k2] = [key(), key()];
    const dataDir = tempDir();
    const a = await startMember("a", { dataDir, config: { encrypt: k1 } });
    expect(JSON.parse(readFileSync(join(dataDir, "serf", "local.keyring"), "utf8"))).toEqual([k1]);
    const answers = await a.keyring("list", undefined, { localOnly: true });
    expect(answers).toHaveLength(1);
    const [lan] = answers;
    expect(lan).toMatchObject({ WAN: false, NumNodes: 1, Keys: { [k1]: 1 }, Error: "" });
    await a.close();

    writeFileSync(join(dataDir, "serf", "local.keyring"), JSON.stringify([k2, k1]));
    const again = await startMember("a", { dataDir, config: { encrypt: k1 } });
    const [after] = await again.keyring("list", undefined, { localOnly: true });
    expect(after).toMatchObject({ Keys: { [k2]: 1, [k1]: 1 }, PrimaryKeys: { [k2]: 1 } });
  });

  it("a corrupt keyring file refuses the start instead of gossiping without its keys", async () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, "serf"), { recursive: true });
    writeFileSync(join(dataDir, "serf", "local.keyring"), '["not a key"]');
    await expect(startMember("a", { dataDir, config: { encrypt: key() } })).rejects.toThrow(
      /16, 24 or 32 bytes/,
    );
    writeFileSync(join(dataDir, "serf", "local.keyring"), "{");
    await expect(startMember("a", { dataDir })).rejects.toThrow(/not a JSON array of keys/);
  });

  it("without encryption every operation reports Serf's refusal, and malformed keys are refused first", async () => {
    const a = await startMember("a");
    const [lan] = await a.keyring("list", undefined, { localOnly: false });
    expect(lan).toMatchObject({
      Error: "1/1 nodes reported failure",
      Messages: { a: "Keyring is empty (encryption not enabled)" },
    });
    await expect(a.keyring("install", "nope", { localOnly: false })).rejects.toThrow(/Invalid key/);
  });
});
