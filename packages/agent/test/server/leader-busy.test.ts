// A leader at its limit of uncommitted entries refuses more writes: 429 with Retry-After, nothing written, and
// the next write once the backlog committed goes through. A real single-server cluster in this process whose
// limit is four entries, so that writes arriving in the same turn pass it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApi, HttpError, LeaderBusyError } from "@cairn/api";
import { RaftRejectedError, RpcError } from "@cairn/raft";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts, waitFor } from "../../../../scripts/lib/index.js";
import { buildAgentConfig } from "../../src/config/index.js";
import { forwardedWriteError, refusedForBacklog } from "../../src/server/raft-backend.js";
import { CairnServer } from "../../src/server/server.js";

let dir: string;
let server: CairnServer;
let api: ReturnType<typeof createApi>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cairn-leader-busy-"));
  const [port, serfLan] = await freePorts(2);
  const { config } = buildAgentConfig(
    {
      node_name: "s1",
      server: true,
      bootstrap: true,
      bind_addr: "127.0.0.1",
      data_dir: dir,
      ports: { server: port!, serf_lan: serfLan!, http: -1 },
    },
    { dev: false, hostname: "s1", clockOffsetMs: 0, configFiles: [] },
  );
  const log = pino({ level: "silent" });
  server = await CairnServer.start({ config, dataDir: dir, log, maxUncommittedEntries: 4 });
  await waitFor("s1 to lead", async () => (server.raft?.isLeader() ? true : undefined), 10_000);
  api = createApi({ backend: server.backend, nodeName: "s1", datacenter: "dc1", logger: log });
  // The new leader's own first writes (its registration in the catalog) may fill the limit for a moment.
  await waitFor("the leader to take a write", async () =>
    (await api.request("/v1/kv/warm", { method: "PUT", body: "x" })).status === 200 ? true : undefined,
  );
}, 20_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a leader at its limit of uncommitted writes", () => {
  it("answers 429 with Retry-After to the writes past it, writes none of them, and takes writes again", async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const res = await api.request(`/v1/kv/busy/${i}`, { method: "PUT", body: `v${i}` });
        return { i, status: res.status, retryAfter: res.headers.get("Retry-After"), body: await res.text() };
      }),
    );
    const refused = answers.filter((a) => a.status === 429);
    const taken = answers.filter((a) => a.status === 200);
    expect(refused.length + taken.length).toBe(40);
    expect(refused.length).toBeGreaterThan(0);
    expect(taken.length).toBeGreaterThan(0);
    for (const a of refused) {
      expect(a.retryAfter).toBe("1");
      expect(a.body).toMatch(/^rate limit exceeded, try again later: /);
      expect((await api.request(`/v1/kv/busy/${a.i}`)).status).toBe(404);
    }
    for (const a of taken) expect((await api.request(`/v1/kv/busy/${a.i}?raw`)).status).toBe(200);
    await waitFor("the leader to take writes again", async () =>
      (await api.request("/v1/kv/after", { method: "PUT", body: "x" })).status === 200 ? true : undefined,
    );
  });

  it("is told apart from other refusals, here and from a leader a write was forwarded to", () => {
    expect(refusedForBacklog(new RaftRejectedError("too-many-uncommitted", "s1"))).toBe(true);
    expect(refusedForBacklog(new RaftRejectedError("conf-pending", "s1"))).toBe(false);
    // As errorFromRemote rebuilds it from what the leader's handler sent back.
    const remote = (err: RaftRejectedError) => new RpcError("remote", err.message, err.name, err.data);
    const busy = forwardedWriteError(remote(new RaftRejectedError("too-many-uncommitted", "s1")));
    expect(busy).toBeInstanceOf(LeaderBusyError);
    const other = remote(new RaftRejectedError("conf-pending", "s1"));
    expect(forwardedWriteError(other)).toBe(other);
  });

  it("leaves a forwarded write that lost its leader an unknown outcome, not a refusal", () => {
    for (const failure of ["unreachable", "timeout"] as const) {
      const lost = forwardedWriteError(
        new RpcError(failure, "raft rejected the request: too-many-uncommitted"),
      );
      expect(lost).toBeInstanceOf(HttpError);
      expect((lost as HttpError).status).toBe(500);
      expect((lost as HttpError).message).toMatch(/\(the write may or may not have been applied\)$/);
    }
  });
});
