// The operator commands over real HTTP. Cairn's operator endpoints belong to the agent (not yet wired
// into an in-process server), so a loopback Hono app answers them in Consul's documented shapes.
import { type AddressInfo, createServer } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cairn, cairnInProcess } from "./helpers/cairn.js";

const calls: string[] = [];
let env: Record<string, string>;
let close: () => void;

beforeAll(async () => {
  const app = new Hono();
  app.get("/v1/operator/raft/configuration", (c) =>
    c.json({
      Servers: [
        {
          ID: "id-1",
          Node: "alpha",
          Address: "127.0.0.1:8300",
          Leader: true,
          ProtocolVersion: "3",
          Voter: true,
          LastIndex: 20,
        },
        {
          ID: "id-2",
          Node: "beta",
          Address: "127.0.0.1:8310",
          Leader: false,
          ProtocolVersion: "3",
          Voter: true,
          LastIndex: 19,
        },
        {
          ID: "id-3",
          Node: "gamma",
          Address: "127.0.0.1:8320",
          Leader: false,
          ProtocolVersion: "3",
          Voter: false,
          LastIndex: 15,
        },
      ],
      Index: 20,
    }),
  );
  app.delete("/v1/operator/raft/peer", (c) => {
    calls.push(`DELETE ${c.req.url.replace(/^http:\/\/[^/]+/, "")}`);
    return c.req.query("id") === "missing" ? c.text("Unknown peer", 500) : c.body(null, 200);
  });
  app.post("/v1/operator/raft/transfer-leader", (c) => {
    calls.push(`POST ${c.req.url.replace(/^http:\/\/[^/]+/, "")} token=${c.req.header("X-Consul-Token")}`);
    return c.json({ Success: true });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  env = { CONSUL_HTTP_ADDR: `127.0.0.1:${(server.address() as AddressInfo).port}` };
  close = () => server.close();
});

afterAll(() => close());

/** A loopback port nobody listens on: 6000 if free (it is on fetch's blocked-port list, which the CLI
 * must not be subject to), else a just-released ephemeral one. */
async function closedPort(): Promise<number> {
  for (const port of [6000, 0]) {
    const server = createServer();
    const bound = await new Promise<number | undefined>((resolve) => {
      server.once("error", () => resolve(undefined));
      server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
    });
    if (bound === undefined) continue;
    await new Promise((resolve) => server.close(resolve));
    return bound;
  }
  throw new Error("no free port");
}

describe("cairn operator raft", () => {
  it("list-peers prints consul's table", async () => {
    const r = await cairn(["operator", "raft", "list-peers"], { env }); // the binary, once
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "Node   ID    Address         State     Voter  RaftProtocol  Commit Index  Trails Leader By",
        "alpha  id-1  127.0.0.1:8300  leader    true   3             20            -",
        "beta   id-2  127.0.0.1:8310  follower  true   3             19            1 commit",
        "gamma  id-3  127.0.0.1:8320  follower  false  3             15            5 commits",
        "",
      ].join("\n"),
    );
  });

  it("remove-peer sends the id or address and reports errors", async () => {
    const ok = await cairnInProcess(["operator", "raft", "remove-peer", "-id=id-3"], { env });
    expect(ok).toMatchObject({ code: 0, stdout: 'Removed peer with id "id-3"\n' });
    const byAddress = await cairnInProcess(
      ["operator", "raft", "remove-peer", "-address", "127.0.0.1:8320"],
      { env },
    );
    expect(byAddress.stdout).toBe('Removed peer with address "127.0.0.1:8320"\n');
    expect(calls).toContain("DELETE /v1/operator/raft/peer?id=id-3");
    expect(calls).toContain("DELETE /v1/operator/raft/peer?address=127.0.0.1%3A8320");
    const failed = await cairnInProcess(["operator", "raft", "remove-peer", "-id=missing"], { env });
    expect(failed).toMatchObject({
      code: 1,
      stderr: "Error removing peer: Unexpected response code: 500 (Unknown peer)\n",
    });
    const neither = await cairnInProcess(["operator", "raft", "remove-peer"], { env });
    expect(neither.code).toBe(1);
    expect(neither.stderr).toContain("an address or id is required");
  });

  it("transfer-leader posts the target id with the token", async () => {
    const r = await cairnInProcess(["operator", "raft", "transfer-leader", "-id", "id-2"], {
      env: { ...env, CONSUL_HTTP_TOKEN: "secret" },
    });
    expect(r).toMatchObject({ code: 0, stdout: "Success\n" });
    expect(calls).toContain("POST /v1/operator/raft/transfer-leader?id=id-2 token=secret");
  });

  it("fails with one line when no server answers", async () => {
    const r = await cairnInProcess(
      ["operator", "raft", "list-peers", `-http-addr=127.0.0.1:${await closedPort()}`],
      {
        env,
      },
    );
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("ECONNREFUSED");
  });
});
