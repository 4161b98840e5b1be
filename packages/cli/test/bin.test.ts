// The `cairn` command npm links: a committed shim that works before anything is built (a fresh clone after
// `npm install`), running the sources through tsx when there is no dist/.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const cliDir = new URL("../", import.meta.url);
const run = promisify(execFile);

describe("the cairn bin", () => {
  it("is a committed file that npm can link at install time", () => {
    const pkg = JSON.parse(readFileSync(new URL("package.json", cliDir), "utf8")) as {
      bin: Record<string, string>;
    };
    expect(pkg.bin.cairn).toBe("./bin/cairn.js");
    expect(existsSync(new URL(pkg.bin.cairn ?? "", cliDir))).toBe(true);
  });

  it("runs the CLI with plain node, from any directory, without a build", async () => {
    const bin = new URL("bin/cairn.js", cliDir).pathname;
    const { stdout } = await run(process.execPath, [bin, "version"], { cwd: "/" });
    expect(stdout).toMatch(/^Cairn v\d+\.\d+\.\d+/);
    const failed = await run(process.execPath, [bin, "members", "-http-addr=127.0.0.1:1"], {
      cwd: "/",
    }).catch((err: { code: number; stderr: string }) => err);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toMatch(/Error retrieving members/);
  }, 60_000);

  it("runs as an executable through its shebang, which carries the agent's Node flags", async () => {
    const bin = new URL("bin/cairn.js", cliDir).pathname;
    const { stdout } = await run(bin, ["version"], { cwd: "/" });
    expect(stdout).toMatch(/^Cairn v\d+\.\d+\.\d+/);
  }, 60_000);
});
