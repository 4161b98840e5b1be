// `cairn watch` against a real API on loopback: one-shot output in process, handler runs in a real process.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EventServer, startEventServer } from "./event-server.js";
import { cairnArgv, cairnInProcess } from "./helpers/cairn.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
let server: EventServer;
const dir = mkdtempSync(join(tmpdir(), "cairn-watch-"));

beforeAll(async () => {
  server = await startEventServer();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (...args: string[]) => cairnInProcess(args, { env: server.env });
const put = async (key: string, value: string) => {
  const res = await fetch(`${server.url}/v1/kv/${key}`, { method: "PUT", body: value });
  expect(res.status).toBe(200);
};
const fire = async (name: string, payload: string) => {
  const res = await fetch(`${server.url}/v1/event/fire/${name}`, { method: "PUT", body: payload });
  expect(res.status).toBe(200);
  return ((await res.json()) as { ID: string }).ID;
};

async function until<T>(read: () => T | undefined, what: string | (() => string), ms = 25_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The JSON documents a handler appended to `file`, one per line. */
/** The complete (newline-terminated) lines of a file the handler appends to; a run still writing is not one. */
function lines(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").slice(0, -1);
}

function runs(file: string): unknown[] {
  return lines(file)
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as unknown);
}

function startWatch(args: string[]): {
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr: () => string;
} {
  const child = spawn(process.execPath, cairnArgv(["watch", ...args]), {
    cwd: ROOT,
    env: { ...server.env, HOME: process.env.HOME ?? "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, stderr: () => stderr };
}

describe("cairn watch without a handler", () => {
  it("prints a key as the Go client's KVPair, or null when missing, and exits", async () => {
    const missing = await run("watch", "-type=key", "-key=watch/none");
    expect([missing.code, missing.stdout]).toEqual([0, "null\n"]);
    await put("watch/one", "v1");
    const r = await run("watch", "-type=key", "-key=watch/one");
    expect(r.code).toBe(0);
    const pair = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(pair)).toEqual([
      "Key",
      "CreateIndex",
      "ModifyIndex",
      "LockIndex",
      "Flags",
      "Value",
      "Session",
    ]);
    expect(pair.Value).toBe(Buffer.from("v1").toString("base64"));
    expect(r.stdout).toMatch(/^\{\n {4}"Key": "watch\/one",\n/);
  });

  it("prints a key prefix and the services", async () => {
    await put("watch/two", "v2");
    const prefix = await run("watch", "-type=keyprefix", "-prefix=watch/");
    expect((JSON.parse(prefix.stdout) as { Key: string }[]).map((p) => p.Key)).toEqual([
      "watch/one",
      "watch/two",
    ]);
    const services = await run("watch", "-type=services");
    expect(services.code).toBe(0);
    expect(JSON.parse(services.stdout)).toEqual({});
  });

  it("prints a service's health entries, the checks in a state and the nodes", async () => {
    const registered = await fetch(`${server.url}/v1/catalog/register`, {
      method: "PUT",
      body: JSON.stringify({
        Node: "n1",
        Address: "10.0.0.1",
        Service: { Service: "web", Tags: ["v2"], Port: 80 },
        Check: { CheckID: "web-ok", Name: "web ok", Status: "passing", ServiceID: "web" },
      }),
    });
    expect(registered.status).toBe(200);
    const service = await run("watch", "-type=service", "-service=web", "-tag=v2", "-passingonly=true");
    expect(service.code).toBe(0);
    const entries = JSON.parse(service.stdout) as { Node: { Node: string }; Service: { Service: string } }[];
    expect(entries.map((e) => [e.Node.Node, e.Service.Service])).toEqual([["n1", "web"]]);
    const other = await run("watch", "-type=service", "-service=web", "-tag=v1");
    expect(JSON.parse(other.stdout)).toEqual([]);
    const checks = await run("watch", "-type=checks", "-state=passing");
    expect((JSON.parse(checks.stdout) as { CheckID: string }[]).map((c) => c.CheckID)).toContain("web-ok");
    const byService = await run("watch", "-type=checks", "-service=web");
    expect((JSON.parse(byService.stdout) as { CheckID: string }[]).map((c) => c.CheckID)).toEqual(["web-ok"]);
    const nodes = await run("watch", "-type=nodes");
    expect((JSON.parse(nodes.stdout) as { Node: string }[]).map((n) => n.Node)).toEqual(["n1"]);
  });

  it("refuses bad parameters and an unreachable agent", async () => {
    const none = await run("watch");
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^Watch type must be specified\n\nUsage: cairn watch/);
    expect((await run("watch", "-type=bogus")).stderr).toBe("Unsupported watch type: bogus\n");
    expect((await run("watch", "-type=services", "-key=x")).stderr).toBe("Invalid parameters: [key]\n");
    expect((await run("watch", "-type=service", "-service=web", "-passingonly=maybe")).stderr).toBe(
      'Failed to parse passingonly flag: strconv.ParseBool: parsing "maybe": invalid syntax\n',
    );
    const down = await cairnInProcess(["watch", "-type=nodes"], { env: { CAIRN_HTTP_ADDR: "127.0.0.1:1" } });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /^Error querying Cairn agent: Get "http:\/\/127\.0\.0\.1:1\/v1\/catalog\/nodes": /,
    );
  });

  it("stops with exit 1 when the handler fails", async () => {
    const r = await run("watch", "-type=key", "-key=watch/one", "exit 3");
    expect([r.code, r.stderr]).toEqual([1, "Error executing handler: exit status 3\n"]);
    // -shell=false runs the arguments as the command itself.
    const direct = await run("watch", "-type=key", "-key=watch/one", "-shell=false", "false");
    expect([direct.code, direct.stderr]).toEqual([1, "Error executing handler: exit status 1\n"]);
    const missing = await run("watch", "-type=key", "-key=watch/one", "-shell=false", "no-such-handler");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error starting handler: spawn no-such-handler ENOENT/);
  });
});

describe("cairn watch with a handler", () => {
  it("runs the handler on every change of a key prefix with the JSON on stdin and CONSUL_INDEX, until SIGINT", async () => {
    const out = join(dir, "prefix.jsonl");
    const idx = join(dir, "prefix.idx");
    await put("hp/a", "1");
    const w = startWatch([
      "-type=keyprefix",
      "-prefix=hp/",
      `cat >> ${out}; echo >> ${out}; echo "$CONSUL_INDEX" >> ${idx}`,
    ]);
    await until(
      () => (runs(out).length >= 1 ? true : undefined),
      () => `the first run (stderr: ${w.stderr()})`,
    );
    await put("hp/b", "2");
    await until(() => (runs(out).length >= 2 ? true : undefined), "the second run");
    const [first, second] = runs(out) as { Key: string }[][];
    expect(first?.map((p) => p.Key)).toEqual(["hp/a"]);
    expect(second?.map((p) => p.Key)).toEqual(["hp/a", "hp/b"]);
    // The handler writes the index after the JSON: the second run may still be between the two.
    const indexes = (
      await until(() => (lines(idx).length >= 2 ? lines(idx) : undefined), "the second run's index")
    ).map(Number);
    expect(indexes[1]).toBeGreaterThan(indexes[0] ?? 0);
    w.child.kill("SIGINT");
    expect(await w.exited).toBe(0);
    expect(w.stderr()).toBe("");
  });

  it("hands an event handler only the events it has not seen", async () => {
    const out = join(dir, "events.jsonl");
    const old = await fire("deploy", "old");
    const w = startWatch(["-type=event", "-name=deploy", `cat >> ${out}; echo >> ${out}`]);
    await until(
      () => (runs(out).length >= 1 ? true : undefined),
      () => `the first run (stderr: ${w.stderr()})`,
    );
    const e1 = await fire("deploy", "one");
    await fire("other", "ignored");
    await until(() => (runs(out).length >= 2 ? true : undefined), "the second run");
    const e2 = await fire("deploy", "two");
    await until(() => (runs(out).length >= 3 ? true : undefined), "the third run");
    const ids = (runs(out) as { ID: string }[][]).map((r) => r.map((e) => e.ID));
    expect(ids).toEqual([[old], [e1], [e2]]);
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
  });
});
