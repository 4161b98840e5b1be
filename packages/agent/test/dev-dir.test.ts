import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeDevDir } from "../src/dev-dir.js";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function root(): string {
  const r = mkdtempSync(join(tmpdir(), "cairn-devdir-test-"));
  roots.push(r);
  return r;
}

/** The ID of a process that ran and exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
}

describe("dev agent data directories", () => {
  it("are named after the agent's process and removed by the next dev agent once that process is gone", async () => {
    const r = root();
    const dead = join(r, `cairn-dev-${await deadPid()}-abc123`);
    mkdirSync(join(dead, "raft"), { recursive: true });
    writeFileSync(join(dead, "raft", "LOG"), "x");
    // A live process's directory (this test's parent) and anything not named like a dev directory stay.
    const live = join(r, `cairn-dev-${process.ppid}-def456`);
    mkdirSync(live);
    const other = join(r, "cairn-dev-notapid");
    mkdirSync(other);

    const made = makeDevDir(r);
    expect(made.startsWith(join(r, `cairn-dev-${process.pid}-`))).toBe(true);
    expect(existsSync(made)).toBe(true);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(other)).toBe(true);
  });
});
