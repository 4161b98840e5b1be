// `cairn kv ...` end to end: the real binary against a real single-node API server.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cairn, cairnInProcess } from "./helpers/cairn.js";
import { startServer, type TestServer } from "./helpers/server.js";

let server: TestServer;
let dir: string;
const kv = (...args: string[]) => cairnInProcess(["kv", ...args], { env: server.env });

beforeAll(async () => {
  server = await startServer();
  dir = await mkdtemp(join(tmpdir(), "cairn-cli-"));
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** The ModifyIndex line of `kv get -detailed`. */
async function modifyIndex(key: string): Promise<string> {
  const r = await kv("get", "-detailed", key);
  return /ModifyIndex\s+(\d+)/.exec(r.stdout)?.[1] ?? "missing";
}

describe("cairn kv", () => {
  it("puts, gets and reports a missing key as consul does", async () => {
    expect(await kv("put", "app/name", "cairn")).toMatchObject({
      code: 0,
      stdout: "Success! Data written to: app/name\n",
    });
    expect(await kv("get", "app/name")).toMatchObject({ code: 0, stdout: "cairn\n" });
    expect(await kv("get", "/app/name")).toMatchObject({ code: 0, stdout: "cairn\n" });
    expect(await kv("get", "app/none")).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "Error! No key exists at: app/none\n",
    });
    expect(await kv("get")).toMatchObject({ code: 1, stderr: "Error! Missing KEY argument\n" });
  });

  it("keeps flags exact up to 2^64-1", async () => {
    const max = "18446744073709551615";
    expect((await kv("put", `-flags=${max}`, "app/flags", "x")).code).toBe(0);
    const detailed = await kv("get", "-detailed", "app/flags");
    expect(detailed.stdout).toContain(`Flags            ${max}\n`);
    expect(detailed.stdout).toMatch(/Session {10}-\nValue {12}x\n$/);
    const over = await kv("put", "-flags=18446744073709551616", "app/flags", "y");
    expect(over.code).toBe(1);
    expect(over.stderr).toContain('invalid value "18446744073709551616" for flag -flags');
    expect((await kv("get", "app/flags")).stdout).toBe("x\n");
  });

  it("check-and-sets on the modify index", async () => {
    await kv("put", "app/cas", "one");
    const index = await modifyIndex("app/cas");
    const stale = await kv("put", "-cas", "-modify-index=1", "app/cas", "two");
    expect(stale).toMatchObject({ code: 1, stderr: "Error! Did not write to app/cas: CAS failed\n" });
    expect(await kv("put", "-cas", `-modify-index=${index}`, "app/cas", "two")).toMatchObject({ code: 0 });
    expect((await kv("get", "app/cas")).stdout).toBe("two\n");
    const exists = await kv("put", "-cas", "-modify-index=0", "app/cas", "three");
    expect(exists.stderr).toBe(
      "Error! Did not write to app/cas: CAS performed with index=0 and key already exists.\n",
    );
    expect(await kv("put", "-cas", "-modify-index=0", "app/cas-new", "first")).toMatchObject({ code: 0 });
  });

  it("reads DATA from @file, stdin and base64", async () => {
    const file = join(dir, "value.bin");
    const bytes = Buffer.from([0, 1, 2, 255, 10]);
    await writeFile(file, bytes);
    expect((await kv("put", "bin/file", `@${file}`)).code).toBe(0);
    expect((await kv("get", "-base64", "bin/file")).stdout).toBe(`${bytes.toString("base64")}\n`);
    const piped = await cairnInProcess(["kv", "put", "bin/stdin", "-"], {
      env: server.env,
      stdin: "from stdin",
    });
    expect(piped.code).toBe(0);
    expect((await kv("get", "bin/stdin")).stdout).toBe("from stdin\n");
    expect((await kv("put", "-base64", "bin/b64", "aGVsbG8=")).code).toBe(0);
    expect((await kv("get", "bin/b64")).stdout).toBe("hello\n");
    expect((await kv("put", "bin/missing", `@${join(dir, "nope")}`)).stderr).toMatch(
      /^Error! Failed to read file: /,
    );
  });

  it("lists recursively, lists keys with a separator, and deletes", async () => {
    await kv("put", "tree/a", "1");
    await kv("put", "tree/b/c", "2");
    await kv("put", "tree/b/d", "3");
    expect((await kv("get", "-recurse", "tree")).stdout).toBe("tree/a:1\ntree/b/c:2\ntree/b/d:3\n");
    expect((await kv("get", "-keys", "tree/")).stdout).toBe("tree/a\ntree/b/\n");
    expect((await kv("get", "-keys", "-separator=", "tree/")).stdout).toBe("tree/a\ntree/b/c\ntree/b/d\n");
    const detailed = await kv("get", "-recurse", "-detailed", "tree/b");
    expect(detailed.stdout.split("\n\n")).toHaveLength(2);

    const index = await modifyIndex("tree/a");
    expect(await kv("delete", "-cas", "-modify-index=1", "tree/a")).toMatchObject({
      code: 1,
      stderr: "Error! Did not delete key tree/a: CAS failed\n",
    });
    expect(await kv("delete", "-cas", `-modify-index=${index}`, "tree/a")).toMatchObject({
      code: 0,
      stdout: "Success! Deleted key: tree/a\n",
    });
    expect(await kv("delete", "-recurse", "tree/b")).toMatchObject({
      code: 0,
      stdout: "Success! Deleted keys with prefix: tree/b\n",
    });
    expect((await kv("get", "-recurse", "tree")).stdout).toBe("");
    expect((await kv("delete", "-modify-index=3", "tree/x")).stderr).toBe(
      "Cannot specify -modify-index without -cas!\n",
    );
  });

  it("exports and imports a tree, flags and binary values intact", async () => {
    await kv("put", "-flags=9007199254740993", "exp/one", "first");
    await kv("put", "exp/dir/", "");
    const file = join(dir, "export.json");
    await writeFile(file, Buffer.from([0xff, 0x00]));
    await kv("put", "exp/bin", `@${file}`);
    const exported = await kv("export", "exp/");
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(
      [
        "[",
        "\t{",
        '\t\t"key": "exp/bin",',
        '\t\t"flags": 0,',
        '\t\t"value": "/wA="',
        "\t},",
        "\t{",
        '\t\t"key": "exp/dir/",',
        '\t\t"flags": 0,',
        '\t\t"value": ""',
        "\t},",
        "\t{",
        '\t\t"key": "exp/one",',
        '\t\t"flags": 9007199254740993,',
        '\t\t"value": "Zmlyc3Q="',
        "\t}",
        "]",
        "",
      ].join("\n"),
    );
    await writeFile(join(dir, "dump.json"), exported.stdout);
    const imported = await kv("import", "-prefix=copy", `@${join(dir, "dump.json")}`);
    expect(imported).toMatchObject({
      code: 0,
      stdout: "Imported: copy/exp/bin\nImported: copy/exp/dir/\nImported: copy/exp/one\n",
    });
    expect((await kv("get", "-detailed", "copy/exp/one")).stdout).toContain(
      "Flags            9007199254740993\n",
    );
    expect((await kv("get", "-base64", "copy/exp/bin")).stdout).toBe("/wA=\n");
    const viaStdin = await cairnInProcess(["kv", "import", "-"], {
      env: server.env,
      stdin: '[{"Key":"in/x","Value":"eQ=="}]',
    });
    expect(viaStdin.stdout).toBe("Imported: in/x\n");
    expect((await kv("get", "in/x")).stdout).toBe("y\n");
  });

  it("refuses bad import data without writing anything", async () => {
    const bad = await kv("import", '[{"key":"bad/a","value":"YQ=="},{"key":"bad/b","value":"%%%"}]');
    expect(bad).toMatchObject({
      code: 1,
      stderr: "Error base 64 decoding value for key bad/b: illegal base64 data\n",
    });
    expect((await kv("get", "-recurse", "bad")).stdout).toBe("");
    expect((await kv("import", "not json")).stderr).toMatch(/^Cannot unmarshal data: /);
  });

  it("acquires and releases a key with a session", async () => {
    const created = await fetch(`${server.url}/v1/session/create`, { method: "PUT", body: "{}" });
    const { ID } = (await created.json()) as { ID: string };
    expect(await kv("put", "-acquire", "locks/a", "held")).toMatchObject({
      code: 1,
      stderr: "Error! Missing -session (required with -acquire and -release)\n",
    });
    expect(await kv("put", "-acquire", `-session=${ID}`, "locks/a", "held")).toMatchObject({
      code: 0,
      stdout: "Success! Lock acquired on: locks/a\n",
    });
    expect((await kv("get", "-detailed", "locks/a")).stdout).toContain(`Session          ${ID}\n`);
    expect(await kv("put", "-release", `-session=${ID}`, "locks/a")).toMatchObject({
      code: 0,
      stdout: "Success! Lock released on: locks/a\n",
    });
    expect((await kv("get", "-detailed", "locks/a")).stdout).toContain("Session          -\n");
  });
});

describe("the cairn binary", () => {
  const bin = (args: string[], stdin?: string) => cairn(args, { env: server.env, stdin });

  it("writes values to stdout byte for byte and exits 1 on a missing key", async () => {
    await kv("put", "-base64", "raw/bytes", Buffer.from([0xff, 0x00, 0x0a]).toString("base64"));
    const r = await bin(["kv", "get", "raw/bytes"]);
    expect(r.code).toBe(0);
    expect(r.stdoutBytes).toEqual(Buffer.from([0xff, 0x00, 0x0a, 0x0a]));
    const missing = await bin(["kv", "get", "raw/none"]);
    expect(missing).toMatchObject({ code: 1, stdout: "", stderr: "Error! No key exists at: raw/none\n" });
  });

  it("reads DATA from stdin and takes -http-addr and -token", async () => {
    const put = await cairn(["kv", "put", "-token=abc", "-http-addr", server.url, "bin/piped", "-"], {
      stdin: "piped value",
    });
    expect(put).toMatchObject({ code: 0, stdout: "Success! Data written to: bin/piped\n" });
    expect(await bin(["kv", "get", "bin/piped"])).toMatchObject({ code: 0, stdout: "piped value\n" });
  });

  it("reports an unreachable server on one line", async () => {
    const refused = await cairn(["kv", "get", "-http-addr=127.0.0.1:9", "app/name"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^Error querying Cairn agent: Get "http:\/\/127\.0\.0\.1:9\/v1\/kv\/app\/name": .+\n$/,
    );
  });
});

describe("cairn snapshot", () => {
  it("saves atomically, inspects and restores", async () => {
    await kv("put", "snap/key", "before");
    const file = join(dir, "backup.snap");
    const saved = await cairn(["snapshot", "save", file], { env: server.env }); // the binary: a real file write
    expect(saved.stderr).toBe("");
    expect(saved.code).toBe(0);
    expect(saved.stdout).toMatch(/^Saved and verified snapshot to index [1-9]\d*\n$/);
    expect((await readFile(file)).length).toBeGreaterThan(0);
    const inspected = await cairnInProcess(["snapshot", "inspect", file]);
    expect(inspected.code).toBe(0);
    expect(inspected.stdout).toContain("Size");

    await kv("put", "snap/key", "after");
    const restored = await cairnInProcess(["snapshot", "restore", file], { env: server.env });
    expect(restored).toMatchObject({ code: 0, stdout: "Restored snapshot\n" });
    expect((await kv("get", "snap/key")).stdout).toBe("before\n");
    expect((await cairnInProcess(["snapshot", "save"], { env: server.env })).stderr).toBe(
      "Missing FILE argument\n",
    );
  });
});
