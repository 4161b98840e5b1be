// `cairn event` against a real API on loopback.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EventServer, startEventServer } from "./event-server.js";
import { cairnInProcess } from "./helpers/cairn.js";

let server: EventServer;
beforeAll(async () => {
  server = await startEventServer();
});
afterAll(() => server.close());

const run = (...args: string[]) => cairnInProcess(args, { env: server.env });

describe("cairn event", () => {
  it("fires an event with a payload and filters and prints its ID", async () => {
    const r = await run("event", "-name=deploy", "-node=^web", "-service=api", "-tag=v2", "hello world");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const id = /^Event ID: ([0-9a-f-]{36})\n$/.exec(r.stdout)?.[1];
    expect(id).toBeDefined();
    const listed = (await (await fetch(`${server.url}/v1/event/list?name=deploy`)).json()) as Record<
      string,
      unknown
    >[];
    expect(listed.at(-1)).toMatchObject({
      ID: id,
      Payload: Buffer.from("hello world").toString("base64"),
      NodeFilter: "^web",
      ServiceFilter: "api",
      TagFilter: "v2",
    });
  });

  it("sends no payload when none is given and escapes the name", async () => {
    const r = await run("event", "-name", "with space");
    expect(r.code).toBe(0);
    const listed = (await (await fetch(`${server.url}/v1/event/list?name=with%20space`)).json()) as {
      Payload: unknown;
    }[];
    expect(listed).toHaveLength(1);
    expect(listed[0]?.Payload).toBeNull();
  });

  it("checks its arguments as consul does", async () => {
    const noName = await run("event", "payload");
    expect(noName.code).toBe(1);
    expect(noName.stderr).toMatch(/^Event name must be specified\n\nUsage: cairn event/);
    const badRe = await run("event", "-name=x", "-service=(");
    expect(badRe.code).toBe(1);
    expect(badRe.stderr).toMatch(/^Failed to compile service filter regexp: /);
    const tag = await run("event", "-name=x", "-tag=a");
    expect([tag.code, tag.stderr]).toEqual([1, "Cannot provide tag filter without service filter.\n"]);
    const many = await run("event", "-name=x", "a", "b");
    expect(many.code).toBe(1);
    expect(many.stderr).toMatch(/^Too many command line arguments\./);
  });

  it("reports the agent's refusal", async () => {
    const r = await run("event", "-name=x", "p".repeat(200));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "Error firing event: Unexpected response code: 500 (user event exceeds configured limit)\n",
    );
  });
});
