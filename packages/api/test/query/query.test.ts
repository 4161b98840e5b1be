// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are HIL templates, not JavaScript ones
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Authorizer } from "../../src/authorizer.js";
import { coordAt, expect400, register } from "../catalog/fixtures.js";
import { registerAgentNode, startServer, type TestServer } from "../http/harness.js";

interface Query {
  ID: string;
  Name: string;
  Session: string;
  Token: string;
  Template: { Type: string; Regexp: string; RemoveEmptyTags: boolean };
  Service: Record<string, unknown> & { Service: string; Tags: string[] | null };
  DNS: { TTL: string };
  CreateIndex: number;
  ModifyIndex: number;
  RaftIndex: { CreateIndex: number; ModifyIndex: number };
}

interface ExecuteResult {
  Service: string;
  Nodes: { Node: { Node: string }; Service: { ID: string; Tags: string[] }; Checks: { CheckID: string }[] }[];
  DNS: { TTL: string };
  Datacenter: string;
  Failovers: number;
}

let s: TestServer;

/**
 * db on n1 (passing), n2 (warning), n3 (critical), n4 (passing, tagged experimental); node ni at x = i/100 s,
 * the agent's node (127.0.0.1) at 0.041 s.
 */
beforeAll(async () => {
  s = await startServer();
  await registerAgentNode(s);
  const health = ["passing", "warning", "critical", "passing"];
  for (let i = 1; i <= 4; i++) {
    await register(s, {
      Node: `n${i}`,
      Address: `10.0.0.${i}`,
      NodeMeta: { rack: i % 2 === 0 ? "even" : "odd" },
      Service: {
        ID: `db-${i}`,
        Service: "db",
        Tags: i === 4 ? ["primary", "Experimental"] : ["primary"],
        Meta: { version: String(i) },
        Port: 5432,
      },
      Checks: [
        { CheckID: "serfHealth", Name: "Serf", Status: "passing" },
        { CheckID: `db-${i}-check`, Name: "db", Status: health[i - 1], ServiceID: `db-${i}` },
      ],
    });
  }
  await s.backend.apply({
    v: 1,
    type: "coordinate.batch-update",
    updates: [
      ...[1, 2, 3, 4].map((i) => ({ Node: `n${i}`, Coord: coordAt(i / 100) })),
      { Node: "agent-one", Coord: coordAt(0.041) },
    ],
  });
});
afterAll(() => s.close());

const create = (body: unknown) => s.json<{ ID: string }>("POST", "/v1/query", body);
const read = (id: string) => s.json<Query[]>("GET", `/v1/query/${id}`);
const execute = (idOrName: string, params = "", headers: Record<string, string> = {}) =>
  s.req("GET", `/v1/query/${idOrName}/execute${params}`, undefined, headers).then(async (res) => ({
    status: res.status,
    body: JSON.parse(await res.text()) as ExecuteResult,
  }));
const nodeNames = (r: ExecuteResult) => r.Nodes.map((n) => n.Node.Node).sort();

describe("prepared query CRUD", () => {
  it("create, read (array of one), list, update, delete", async () => {
    const created = await create({
      Name: "crud",
      Service: { Service: "db", Tags: ["primary"] },
      DNS: { TTL: "10s" },
    });
    expect(created.status).toBe(200);
    expect(created.body.ID).toMatch(/^[0-9a-f-]{36}$/);
    const id = created.body.ID;

    const got = await read(id);
    expect(got.status).toBe(200);
    expect(got.body).toHaveLength(1);
    const [q] = got.body;
    expect(q).toMatchObject({
      ID: id,
      Name: "crud",
      Session: "",
      Token: "",
      Template: { Type: "", Regexp: "", RemoveEmptyTags: false },
      Service: {
        Service: "db",
        Failover: { NearestN: 0, Datacenters: null },
        OnlyPassing: false,
        Near: "",
        Tags: ["primary"],
        NodeMeta: null,
        ServiceMeta: null,
        IgnoreCheckIDs: null,
        Connect: false,
      },
      DNS: { TTL: "10s" },
    });
    expect(q?.RaftIndex).toEqual({ CreateIndex: q?.CreateIndex, ModifyIndex: q?.ModifyIndex });
    expect(Number(got.res.headers.get("X-Consul-Index"))).toBeGreaterThan(0);

    const listed = await s.json<Query[]>("GET", "/v1/query");
    expect(listed.body.map((x) => x.ID)).toContain(id);

    const updated = await s.req(
      "PUT",
      `/v1/query/${id}`,
      JSON.stringify({ Name: "crud2", Service: { Service: "db" } }),
    );
    expect(updated.status).toBe(200);
    const after = (await read(id)).body[0];
    expect(after).toMatchObject({ Name: "crud2", CreateIndex: q?.CreateIndex });
    expect(after?.ModifyIndex).toBeGreaterThan(q?.ModifyIndex ?? 0);

    expect((await s.req("DELETE", `/v1/query/${id}`)).status).toBe(200);
    const gone = await s.req("GET", `/v1/query/${id}`);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toBe("Query not found");
  });

  it("unknown IDs: 404 on read, update, delete, execute and explain", async () => {
    const unknown = "99999999-9999-9999-9999-999999999999";
    for (const [method, path] of [
      ["GET", `/v1/query/${unknown}`],
      ["GET", `/v1/query/${unknown}/execute`],
      ["GET", `/v1/query/${unknown}/explain`],
    ] as const) {
      const res = await s.req(method, path);
      expect(res.status).toBe(404);
      expect(await res.text()).toBe("Query not found");
    }
    for (const method of ["PUT", "DELETE"]) {
      const res = await s.req(
        method,
        `/v1/query/${unknown}`,
        method === "PUT" ? '{"Name":"x","Service":{"Service":"db"}}' : undefined,
      );
      expect(res.status).toBe(404);
      expect(await res.text()).toBe(`Cannot modify non-existent prepared query: '${unknown}'`);
    }
  });

  it("bad input is a 400 with Consul's reason and stores nothing", async () => {
    const before = (await s.json<Query[]>("GET", "/v1/query")).body.length;
    await expect400(
      await s.req("POST", "/v1/query", '{"Name":"x","Service":{}}'),
      "Invalid prepared query: Must provide a Service name to query",
    );
    await expect400(
      await s.req("POST", "/v1/query", '{"Service":{"Service":"db"}}'),
      "Invalid prepared query: Must be bound to a session",
    );
    await expect400(
      await s.req("POST", "/v1/query", '{"Name":"x","Service":{"Service":"db"},"DNS":{"TTL":"soon"}}'),
      `Invalid prepared query: Bad DNS TTL 'soon': time: invalid duration "soon"`,
    );
    await expect400(
      await s.req("POST", "/v1/query", '{"Name":"x","Token":"<hidden>","Service":{"Service":"db"}}'),
      /^Invalid prepared query: Bad Token '<hidden>'/,
    );
    await expect400(
      await s.req("POST", "/v1/query", '{"Name":"x","Service":{"Service":"db","Failover":{"NearestN":-1}}}'),
      "Invalid prepared query: Bad NearestN '-1', must be >= 0",
    );
    await expect400(
      await s.req(
        "POST",
        "/v1/query",
        '{"Name":"x","Session":"00000000-0000-0000-0000-000000000000","Service":{"Service":"db"}}',
      ),
      'invalid session "00000000-0000-0000-0000-000000000000"',
    );
    await expect400(await s.req("POST", "/v1/query", '{"Name":1}'), /^Request decode failed: Name: /);
    await expect400(
      await s.req("POST", "/v1/query", '{"ID":"abc","Name":"x","Service":{"Service":"db"}}'),
      "ID must be empty when creating a new prepared query",
    );
    expect((await create({ Name: "taken", Service: { Service: "db" } })).status).toBe(200);
    await expect400(
      await s.req("POST", "/v1/query", '{"Name":"TAKEN","Service":{"Service":"db"}}'),
      "name 'TAKEN' aliases an existing query name",
    );
    expect((await s.json<Query[]>("GET", "/v1/query")).body.length).toBe(before + 1);
  });

  it("templates: a bad regexp, a bad interpolation and a second catch-all are refused", async () => {
    await expect400(
      await s.req(
        "POST",
        "/v1/query",
        JSON.stringify({
          Name: "re",
          Template: { Type: "name_prefix_match", Regexp: "(" },
          Service: { Service: "db" },
        }),
      ),
      "failed compiling template: Bad Regexp: error parsing regexp: missing closing ): `(`",
    );
    await expect400(
      await s.req(
        "POST",
        "/v1/query",
        JSON.stringify({
          Name: "t",
          Template: { Type: "name_prefix_match" },
          Service: { Service: "${nope}" },
        }),
      ),
      "failed compiling template: Bad evaluation for '${nope}' in Service.Service: unknown variable accessed: nope",
    );
    await expect400(
      await s.req(
        "POST",
        "/v1/query",
        JSON.stringify({ Name: "t", Template: { Type: "other" }, Service: { Service: "db" } }),
      ),
      "failed compiling template: Bad Template.Type 'other'",
    );
    const catchAll = { Template: { Type: "name_prefix_match" }, Service: { Service: "${name.full}" } };
    const first = await create(catchAll);
    expect(first.status).toBe(200);
    await expect400(
      await s.req("POST", "/v1/query", JSON.stringify(catchAll)),
      "a query template with an empty name already exists",
    );
    await s.req("DELETE", `/v1/query/${first.body.ID}`);
  });

  it("a query bound to a session is deleted when the session is destroyed", async () => {
    const session = (await s.json<{ ID: string }>("PUT", "/v1/session/create", {})).body.ID;
    const q = await create({ Session: session, Service: { Service: "db" } });
    expect(q.status).toBe(200);
    expect((await read(q.body.ID)).status).toBe(200);
    expect((await s.req("PUT", `/v1/session/destroy/${session}`)).status).toBe(200);
    expect((await read(q.body.ID)).status).toBe(404);
  });
});

describe("prepared query execution", () => {
  let id: string;
  beforeAll(async () => {
    id = (await create({ Name: "db-all", Service: { Service: "db" }, DNS: { TTL: "5s" } })).body.ID;
  });

  it("by ID and by name: passing and warning instances, critical excluded; the result shape", async () => {
    const byId = await execute(id);
    expect(byId.status).toBe(200);
    expect(nodeNames(byId.body)).toEqual(["n1", "n2", "n4"]);
    expect(byId.body).toMatchObject({ Service: "db", DNS: { TTL: "5s" }, Datacenter: "dc1", Failovers: 0 });
    const node = byId.body.Nodes.find((n) => n.Node.Node === "n1");
    expect(node?.Service.ID).toBe("db-1");
    expect(node?.Checks.map((c) => c.CheckID).sort()).toEqual(["db-1-check", "serfHealth"]);
    expect(nodeNames((await execute("db-all")).body)).toEqual(["n1", "n2", "n4"]);
  });

  it("OnlyPassing, IgnoreCheckIDs, tags with !, NodeMeta and ServiceMeta", async () => {
    const run = async (service: Record<string, unknown>) => {
      const q = await create({ Name: `x-${Math.random()}`, Service: { Service: "db", ...service } });
      return nodeNames((await execute(q.body.ID)).body);
    };
    expect(await run({ OnlyPassing: true })).toEqual(["n1", "n4"]);
    expect(await run({ IgnoreCheckIDs: ["db-3-check"] })).toEqual(["n1", "n2", "n3", "n4"]);
    expect(await run({ Tags: ["PRIMARY", "!experimental"] })).toEqual(["n1", "n2"]);
    expect(await run({ NodeMeta: { rack: "even" } })).toEqual(["n2", "n4"]);
    expect(await run({ ServiceMeta: { version: "4" } })).toEqual(["n4"]);
  });

  it("near=_agent, a node name, or _ip (X-Forwarded-For first) sorts by round-trip time; limit after", async () => {
    await s.backend.apply({
      v: 1,
      type: "coordinate.batch-update",
      updates: [{ Node: "agent-one", Coord: coordAt(0.041) }],
    });
    const order = (r: ExecuteResult) => r.Nodes.map((n) => n.Node.Node);
    expect(order((await execute(id, "?near=_agent")).body)).toEqual(["n4", "n2", "n1"]);
    expect(order((await execute(id, "?near=n1")).body)).toEqual(["n1", "n2", "n4"]);
    expect(order((await execute(id, "?near=_ip", { "X-Forwarded-For": "10.0.0.4, 10.9.9.9" })).body)).toEqual(
      ["n4", "n2", "n1"],
    );
    expect(order((await execute(id, "?near=_agent&limit=2")).body)).toEqual(["n4", "n2"]);
  });

  it("near=_ip without X-Forwarded-For uses the peer address (the agent's node here, 127.0.0.1)", async () => {
    const order = (r: ExecuteResult) => r.Nodes.map((n) => n.Node.Node);
    expect(order((await execute(id, "?near=_ip")).body)).toEqual(["n4", "n2", "n1"]);
    // An X-Forwarded-For that is not an IP is ignored in favour of the peer.
    expect(order((await execute(id, "?near=_ip", { "X-Forwarded-For": "proxy.example" })).body)).toEqual([
      "n4",
      "n2",
      "n1",
    ]);
  });

  it("a query's own Near applies when the request names none", async () => {
    const q = await create({ Name: "near-n1", Service: { Service: "db", Near: "n1" } });
    expect((await execute(q.body.ID)).body.Nodes.map((n) => n.Node.Node)).toEqual(["n1", "n2", "n4"]);
  });

  it("names are percent-decoded; a malformed escape is not found, never a fault", async () => {
    expect((await execute("db%2Dall")).status).toBe(200);
    expect((await s.req("GET", "/v1/query/%zz/execute")).status).toBe(404);
  });

  it("bad limit is a 400", async () => {
    await expect400(await s.req("GET", `/v1/query/${id}/execute?limit=x`), /^Bad limit: /);
  });

  it("connect=true keeps Connect-capable instances only", async () => {
    expect((await execute(id, "?connect=true")).body.Nodes).toEqual([]);
    await register(s, {
      Node: "n1",
      Address: "10.0.0.1",
      Service: {
        ID: "db-proxy",
        Service: "db-sidecar-proxy",
        Kind: "connect-proxy",
        Port: 21000,
        Proxy: { DestinationServiceName: "db" },
      },
    });
    const r = await execute(id, "?connect=true");
    expect(r.body.Nodes.map((n) => n.Service.ID)).toEqual(["db-proxy"]);
  });
});

describe("templates over HTTP", () => {
  beforeAll(async () => {
    await create({
      Name: "geo-db",
      Template: { Type: "name_prefix_match", Regexp: "^geo-db-(.*?)-([^\\-]+?)$", RemoveEmptyTags: true },
      Service: { Service: "${match(1)}", Tags: ["${match(2)}", "${agent.segment}"] },
    });
    await create({
      Name: "geo",
      Template: { Type: "name_prefix_match" },
      Service: { Service: "${name.suffix}" },
    });
  });

  it("explain renders the template for the looked-up name (longest prefix wins)", async () => {
    const r = await s.json<{ Query: Query }>("GET", "/v1/query/geo-db-db-primary/explain");
    expect(r.status).toBe(200);
    expect(r.body.Query).toMatchObject({ Name: "geo-db", Service: { Service: "db", Tags: ["primary"] } });
    const shorter = await s.json<{ Query: Query }>("GET", "/v1/query/geo-x/explain");
    expect(shorter.body.Query).toMatchObject({ Name: "geo", Service: { Service: "-x" } });
  });

  it("execute runs the rendered query", async () => {
    const r = await execute("geo-db-db-primary");
    expect(r.body.Service).toBe("db");
    expect(nodeNames(r.body)).toEqual(["n1", "n2", "n4"]);
  });

  it("a template is not executed by ID", async () => {
    const all = (await s.json<Query[]>("GET", "/v1/query")).body;
    const template = all.find((q) => q.Name === "geo-db");
    await expect400(
      await s.req("GET", `/v1/query/${template?.ID}/execute`),
      "prepared query templates can only be resolved up by name, not by ID",
    );
  });
});

describe("prepared query tokens and ACLs", () => {
  it("with ACLs off the token is shown; a non-management reader sees <hidden>", async () => {
    const id = (await create({ Name: "with-token", Token: "s3cret", Service: { Service: "db" } })).body.ID;
    expect((await read(id)).body[0]?.Token).toBe("s3cret");

    const reader: Authorizer = {
      authorize: (token, _ns, type, name, access) =>
        type === "acl"
          ? "deny"
          : type === "query" && access === "write"
            ? token === "w"
              ? "allow"
              : "deny"
            : name === "secret"
              ? "deny"
              : "allow",
    };
    const acl = await startServer({}, { authorizer: reader });
    try {
      const made = await acl.json<{ ID: string }>("POST", "/v1/query", {
        Name: "q",
        Token: "s3cret",
        Service: { Service: "db" },
      });
      expect(made.status).toBe(403);
      const ok = await acl.req(
        "POST",
        "/v1/query?token=w",
        JSON.stringify({ Name: "q", Token: "s3cret", Service: { Service: "db" } }),
      );
      const qid = ((await ok.json()) as { ID: string }).ID;
      expect((await acl.json<Query[]>("GET", `/v1/query/${qid}`)).body[0]?.Token).toBe("<hidden>");
      expect((await acl.json<Query[]>("GET", "/v1/query")).body.map((q) => q.Token)).toEqual(["<hidden>"]);
      const hidden = await acl.req(
        "POST",
        "/v1/query?token=w",
        JSON.stringify({ Name: "secret", Service: { Service: "db" } }),
      );
      const hid = ((await hidden.json()) as { ID: string }).ID;
      expect((await acl.req("GET", `/v1/query/${hid}`)).status).toBe(403);
      expect((await acl.json<Query[]>("GET", "/v1/query")).body.map((q) => q.Name)).toEqual(["q"]);
    } finally {
      await acl.close();
    }
  });
});
