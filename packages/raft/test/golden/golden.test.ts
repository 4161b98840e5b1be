import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Env } from "./env.js";
import { parseCommand, parseScript, renderScript } from "./script.js";

const dir = join(fileURLToPath(new URL(".", import.meta.url)), "scenarios");
const update = process.env.UPDATE_GOLDEN === "1";

/** Replays a scenario file; returns it as it would read with the outputs this run produced. */
function replay(file: string): { expected: string; actual: string } {
  const path = join(dir, file);
  const expected = readFileSync(path, "utf8");
  const blocks = parseScript(expected, file);
  const env = new Env();
  const outputs = blocks.map((b) => {
    try {
      return env.run(parseCommand(b.command));
    } catch (e) {
      throw new Error(`${file}:${b.line}: ${b.command}: ${(e as Error).message}`, { cause: e });
    }
  });
  return { expected, actual: renderScript(blocks, outputs) };
}

describe("golden traces of the Raft core", () => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".txt"))
    .sort();

  it("has scenarios", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it("fails a scenario on a usage mistake instead of recording it as output", () => {
    const env = new Env();
    expect(() => env.run(parseCommand("add-nodes 3 checkqorum=true"))).toThrow(/no option checkqorum/);
    expect(() => env.run(parseCommand("add-nodes x"))).toThrow(/must be a number/);
    env.run(parseCommand("add-nodes 3"));
    expect(() => env.run(parseCommand("campaign 9"))).toThrow(/no node 9/);
    expect(() => env.run(parseCommand("frobnicate 1"))).toThrow(/unknown command/);
    expect(() => parseScript("status 1\nok\n", "f.txt")).toThrow(/f.txt:1: .* is not followed by ----/);
  });

  for (const file of files) {
    it(`${file} is in canonical form (a rewrite changes outputs only)`, () => {
      const text = readFileSync(join(dir, file), "utf8");
      const blocks = parseScript(text, file);
      expect(
        renderScript(
          blocks,
          blocks.map((b) => b.expected),
        ),
      ).toBe(text);
    });

    it(file, () => {
      const { expected, actual } = replay(file);
      if (update) writeFileSync(join(dir, file), actual);
      else expect(actual, `${file} differs; rerun with UPDATE_GOLDEN=1 and review the diff`).toBe(expected);
    });
  }
});
