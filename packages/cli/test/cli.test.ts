// The command tree in process: dispatch, help and usage errors, without a server.
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli.js";
import type { Io } from "../src/command.js";
import { createAgentCommand } from "../src/commands/agent.js";

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = {
    out: (t) => (out += `${Buffer.from(t).toString()}\n`),
    err: (t) => (err += `${t}\n`),
    readStdin: async () => Buffer.alloc(0),
    env: { CAIRN_HTTP_ADDR: "127.0.0.1:9" },
  };
  const code = await runCli(argv, io);
  return { code, out, err };
}

describe("runCli", () => {
  it("prints the command list on stderr and fails without a command or with an unknown one", async () => {
    for (const argv of [[], ["nope"], ["kv"], ["operator", "raft", "bogus"]]) {
      const r = await run(argv);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.err).toContain("Subcommands:");
    }
  });

  it("prints help on stdout and succeeds with -h at any level", async () => {
    const root = await run(["-h"]);
    expect(root).toMatchObject({ code: 0, err: "" });
    expect(root.out).toMatch(/kv {4,}Interact with the key-value store/);
    const put = await run(["kv", "put", "-h"]);
    expect(put.code).toBe(0);
    expect(put.out).toContain("Usage: cairn kv put [options] KEY [DATA]");
    expect(put.out).toContain("-modify-index=<value>");
    expect(put.out).toContain("-http-addr=<string>");
    const raft = await run(["operator", "raft", "--help"]);
    expect(raft.out).toContain("transfer-leader");
  });

  it("reports a bad flag with the command's usage", async () => {
    const r = await run(["kv", "get", "-bogus", "k"]);
    expect(r.code).toBe(1);
    expect(r.err.split("\n")[0]).toBe("flag provided but not defined: -bogus");
    expect(r.err).toContain("Usage: cairn kv get");
  });

  it("validates kv arguments before any request", async () => {
    expect(await run(["kv", "get", "a", "b"])).toMatchObject({
      code: 1,
      err: "Too many arguments (expected 1, got 2)\n",
    });
    expect(await run(["kv", "put"])).toMatchObject({ code: 1, err: "Error! Missing KEY argument\n" });
    expect(await run(["kv", "delete", "-cas", "k"])).toMatchObject({
      code: 1,
      err: "Cannot delete a key that does not exist. Provide a -modify-index greater than than 0.\n",
    });
    expect(await run(["kv", "delete", "-recurse", "-cas", "-modify-index=2", "k"])).toMatchObject({
      err: "Cannot specify both -cas and -recurse!\n",
    });
    expect(await run(["kv", "import"])).toMatchObject({ code: 1, err: "Error! Missing DATA argument\n" });
    expect(await run(["kv", "put", "-base64", "k", "not base64!"])).toMatchObject({
      code: 1,
      err: "Error! Cannot base 64 decode data: illegal base64 data\n",
    });
  });

  it("prints the version", async () => {
    for (const argv of [["version"], ["-version"], ["--version"]]) {
      expect((await run(argv)).out).toMatch(/^Cairn v\d+\.\d+\.\d+\n/);
    }
  });

  it("generates a fresh 32-byte gossip key each time", async () => {
    const [a, b] = [await run(["keygen"]), await run(["keygen"])];
    expect(a.code).toBe(0);
    expect(Buffer.from(a.out.trim(), "base64")).toHaveLength(32);
    expect(a.out).not.toBe(b.out);
  });
});

describe("cairn agent", () => {
  const io = () => {
    const lines: string[] = [];
    const sink: Io = {
      out: (t) => lines.push(Buffer.from(t).toString()),
      err: (t) => lines.push(t),
      readStdin: async () => Buffer.alloc(0),
      env: {},
    };
    return { lines, sink };
  };

  it("hands its arguments to runAgent and returns its exit code", async () => {
    const seen: unknown[] = [];
    const cmd = createAgentCommand(async () => ({
      runAgent: async (argv: string[]) => {
        seen.push(argv);
        return 7;
      },
    }));
    expect(await cmd.run(["-dev", "-node=a"], io().sink)).toBe(7);
    expect(seen).toEqual([["-dev", "-node=a"]]);
  });

  it("explains on one line when the agent cannot be loaded or lacks runAgent", async () => {
    const missing = io();
    const failing = createAgentCommand(async () => {
      throw new Error("Cannot find package");
    });
    expect(await failing.run([], missing.sink)).toBe(1);
    expect(missing.lines).toEqual([
      "Error! The agent is not available: cannot load @cairn/agent (Cannot find package)",
    ]);
    const empty = io();
    expect(await createAgentCommand(async () => ({})).run([], empty.sink)).toBe(1);
    expect(empty.lines).toEqual([
      "Error! The agent is not available: @cairn/agent does not export runAgent(argv)",
    ]);
  });
});
