// Gossip key rotation with the npm `consul` client against a real agent started with -encrypt. The client
// has no keyring helpers, so the requests go through its own request pipeline (papi, as every one of its
// endpoints does): list, install, use, remove, and a malformed key refused.

import { randomBytes } from "node:crypto";
import Consul from "consul";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentProcess, awaitLeader, freePorts, spawnAgent, stop } from "../../../scripts/lib/index.js";

const K1 = randomBytes(32).toString("base64");
const K2 = randomBytes(32).toString("base64");
let agent: AgentProcess;
let consul: Consul;

interface Pool {
  WAN: boolean;
  Datacenter: string;
  Keys: Record<string, number>;
  PrimaryKeys: Record<string, number>;
  NumNodes: number;
}

interface PapiRequest {
  err?: Error & { statusCode?: number };
  res?: { statusCode: number; body: unknown };
}
type Next = (stop: boolean, err?: Error, value?: unknown) => void;
type Method = (req: Record<string, unknown>, done: (r: PapiRequest, next: Next) => void) => Promise<unknown>;

/** The answer body, or the client's error for a non-2xx status. */
const answer = (request: PapiRequest, next: Next) =>
  request.err ? next(false, request.err) : next(false, undefined, request.res?.body);

function call(method: "_get" | "_post" | "_put" | "_delete", body?: unknown): Promise<unknown> {
  const send = (consul as unknown as Record<string, Method>)[method]!.bind(consul);
  const req: Record<string, unknown> = { name: "operator.keyring", path: "/operator/keyring" };
  if (body !== undefined) Object.assign(req, { type: "json", body });
  return send(req, answer);
}

beforeAll(async () => {
  const [http, server] = (await freePorts(2)) as [number, number];
  agent = spawnAgent({ name: "compat-keyring", ports: { http, server }, flags: ["-dev", "-encrypt", K1] });
  await awaitLeader([agent]);
  consul = new Consul({ host: agent.http.host, port: agent.http.port });
}, 60_000);

afterAll(async () => {
  consul?.destroy();
  await stop(agent.process);
});

describe("consul client: gossip keyring", () => {
  it("rotates the gossip key: install, use, remove", async () => {
    const first = (await call("_get")) as Pool[];
    expect(first.map((p) => [p.WAN, p.Datacenter, p.NumNodes])).toEqual([
      [true, "dc1", 1],
      [false, "dc1", 1],
    ]);
    expect(first[1]!.Keys).toEqual({ [K1]: 1 });
    await call("_post", { Key: K2 });
    expect(((await call("_get")) as Pool[])[1]!.Keys).toEqual({ [K1]: 1, [K2]: 1 });
    await call("_put", { Key: K2 });
    expect(((await call("_get")) as Pool[])[1]!.PrimaryKeys).toEqual({ [K2]: 1 });
    await call("_delete", { Key: K1 });
    const last = (await call("_get")) as Pool[];
    for (const pool of last) expect(pool.Keys).toEqual({ [K2]: 1 });
  });

  it("a malformed key is a 400 and changes nothing", async () => {
    const err = (await call("_post", { Key: "bm90LWEta2V5" }).catch((e: unknown) => e)) as {
      statusCode?: number;
      message: string;
    };
    expect(err.statusCode).toBe(400);
    expect(err.message).toMatch(/Invalid key/);
    expect(((await call("_get")) as Pool[])[1]!.Keys).toEqual({ [K2]: 1 });
  });
});
