// Recovered data directories started as real RaftNodes: survivors elect a leader among themselves from the
// recovered configuration and addresses alone, the most complete log wins, and its entries all commit.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeConfEntry } from "../src/core/conf.js";
import type { Entry, HardState } from "../src/core/types.js";
import { openLevelRaftNode, type ServerRaftNode } from "../src/level-node.js";
import { type RecoveryMember, recoverCluster } from "../src/recovery/recover-cluster.js";
import { RaftStorage } from "../src/storage/raft-storage.js";
import { waitUntil } from "./integration/cluster.js";
import { KvMachine, putCommand } from "./integration/kv-machine.js";

const silent = pino({ level: "silent" });

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const put = (index: number, term: number, key: string, value: string): Entry => ({
  index,
  term,
  kind: "normal",
  data: putCommand(key, value),
});

/** The log every server had: the bootstrap configuration of a, b, c, then k2..k4 (term 1). */
const shared: Entry[] = [
  {
    index: 1,
    term: 1,
    kind: "conf",
    data: encodeConfEntry({ change: null, conf: { voters: ["a", "b", "c"], learners: [] } }),
  },
  put(2, 1, "k2", "v2"),
  put(3, 1, "k3", "v3"),
  put(4, 1, "k4", "v4"),
];
/** a missed term 3: it holds an uncommitted tail of term 2 that the leader of term 3 replaced. */
const logA = [...shared, put(5, 2, "x", "a5"), put(6, 2, "y", "a6")];
/** b holds term 3's entry 5, committed by b and c before the outage. */
const logB = [...shared, put(5, 3, "x", "b5")];

describe("recovered servers started as RaftNodes", () => {
  let root: string;
  const nodes: ServerRaftNode<number>[] = [];
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "cairn-raft-recovery-node-"));
  });
  afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.stop()));
    await rm(root, { recursive: true, force: true });
  });

  async function seed(id: string, entries: Entry[], hardState: HardState): Promise<void> {
    const s = await RaftStorage.open(join(root, id), silent);
    await s.save({ hardState, entries });
    await s.close();
  }

  /** Starts `id` knowing no peer address: everything it knows comes from its recovered data directory. */
  async function start(
    id: string,
    members: RecoveryMember[],
  ): Promise<{ node: ServerRaftNode<number>; machine: KvMachine }> {
    const machine = new KvMachine();
    const node = await openLevelRaftNode<number>({
      id,
      clusterId: "recovery",
      dataDir: join(root, id),
      host: "127.0.0.1",
      port: Number(members.find((m) => m.id === id)!.address.split(":")[1]),
      peers: {},
      stateMachine: machine,
      logger: silent,
      tickMs: 20,
      electionTicks: 10,
      heartbeatTicks: 2,
      transportLimits: { backoff: { initialMs: 20, maxMs: 200 } },
    });
    nodes.push(node);
    return { node, machine };
  }

  it("a lone survivor leads and commits its whole log, uncommitted tail included", async () => {
    await seed("a", logA, { term: 3, vote: "c", commit: 4 });
    const members = [{ id: "a", address: `127.0.0.1:${await freePort()}`, voter: true }];
    await recoverCluster(join(root, "a"), members, silent);
    const { node, machine } = await start("a", members);
    await waitUntil(() => node.isLeader(), "a leads");
    await waitUntil(() => node.appliedIndex >= 7, "a applies its log and its noop");
    expect(Object.fromEntries(machine.data)).toEqual({ k2: "v2", k3: "v3", k4: "v4", x: "a5", y: "a6" });
    expect(node.status().conf).toEqual({ voters: ["a"], learners: [] });
    await node.propose(putCommand("after", "recovery"));
    expect(machine.data.get("after")).toBe("recovery");
  });

  it("two survivors with diverging logs elect the more complete one and converge on its log", async () => {
    await seed("a", logA, { term: 3, vote: "c", commit: 4 });
    await seed("b", logB, { term: 3, vote: "b", commit: 5 });
    const members = [
      { id: "a", address: `127.0.0.1:${await freePort()}`, voter: true },
      { id: "b", address: `127.0.0.1:${await freePort()}`, voter: true },
    ];
    for (const id of ["a", "b"]) await recoverCluster(join(root, id), members, silent);
    const [a, b] = [await start("a", members), await start("b", members)];
    await waitUntil(() => b.node.isLeader(), "b leads", 15_000);
    const index = await b.node.propose(putCommand("after", "recovery"));
    await waitUntil(() => a.node.appliedIndex >= index, "a catches up");
    const expected = { k2: "v2", k3: "v3", k4: "v4", x: "b5", after: "recovery" };
    expect(Object.fromEntries(b.machine.data)).toEqual(expected);
    expect(Object.fromEntries(a.machine.data)).toEqual(expected);
    expect(a.node.isLeader()).toBe(false);
    for (const { node } of [a, b]) expect(node.status().conf).toEqual({ voters: ["a", "b"], learners: [] });
  });
});
