import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AclServer, ROOT, startAclServer } from "./harness.js";

let s: AclServer;
let teamToken = "";

const TEAM_RULES = `
key_prefix "" { policy = "write" }
session_prefix "" { policy = "write" }
node_prefix "" { policy = "read" }
`;

function setSerf(Status: string) {
  return s.call("PUT", "/v1/catalog/register", ROOT, {
    Node: "n1",
    Address: "10.0.0.1",
    Check: { CheckID: "serfHealth", Name: "Serf", Status },
  });
}

beforeAll(async () => {
  s = await startAclServer();
  expect((await s.call("PUT", "/v1/namespace", ROOT, { Name: "team" })).status).toBe(200);
  teamToken = await s.tokenWith(TEAM_RULES, "team");
  expect((await setSerf("passing")).status).toBe(200);
});
afterAll(() => s.close());

describe("sessions in a non-default namespace name the node's default-namespace serfHealth", () => {
  it("create (?ns=team, default checks), read and destroy", async () => {
    const created = await s.call<{ ID: string }>("PUT", "/v1/session/create?ns=team", ROOT, { Node: "n1" });
    expect(created.status, created.text).toBe(200);
    const id = created.body.ID;
    const info = await s.call<Array<{ Namespace: string; Node: string }>>(
      "GET",
      `/v1/session/info/${id}?ns=team`,
      ROOT,
    );
    expect(info.body).toHaveLength(1);
    expect(info.body[0]).toMatchObject({ Namespace: "team", Node: "n1" });
    expect((await s.call("GET", `/v1/session/info/${id}`, ROOT)).body).toEqual([]);
    expect((await s.call("PUT", `/v1/session/destroy/${id}?ns=team`, ROOT)).text).toBe("true");
    expect((await s.call("GET", `/v1/session/info/${id}?ns=team`, ROOT)).body).toEqual([]);
  });

  it("a team token's session loses its lock when serfHealth goes critical", async () => {
    const created = await s.call<{ ID: string }>("PUT", "/v1/session/create", teamToken, {
      Node: "n1",
      Checks: ["serfHealth"],
    });
    expect(created.status, created.text).toBe(200);
    const id = created.body.ID;
    expect((await s.call("PUT", `/v1/kv/leader?acquire=${id}`, teamToken, "me")).text).toBe("true");
    const held = await s.call<Array<{ Session?: string }>>("GET", "/v1/kv/leader?ns=team", ROOT);
    expect(held.body[0]?.Session).toBe(id);
    expect((await s.call("GET", "/v1/kv/leader", ROOT)).status).toBe(404);

    expect((await setSerf("critical")).status).toBe(200);
    expect((await s.call("GET", `/v1/session/info/${id}`, teamToken)).body).toEqual([]);
    const released = await s.call<Array<{ Session?: string }>>("GET", "/v1/kv/leader", teamToken);
    expect(released.body[0]?.Session).toBeUndefined();
    await setSerf("passing");
  });
});
