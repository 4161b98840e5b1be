// One Raft server for the Raft benchmark (scripts/bench/raft.ts): the benchmark runs three of these in its
// own process, or (--processes) runs the followers as child processes of this file.

import { join } from "node:path";
import pino from "pino";
import { openLevelRaftNode, type ServerRaftNode, type StateMachine } from "../../packages/raft/src/index.js";

/** The cheapest state machine: counts commands, so the figures are Raft's and the disk's. */
class Counter implements StateMachine<number> {
  count = 0;
  apply(): number {
    return ++this.count;
  }
  async snapshot(out: { write(chunk: Uint8Array): Promise<void> }): Promise<void> {
    await out.write(Buffer.from(String(this.count)));
  }
  async restore(): Promise<void> {}
}

export interface BenchServerConfig {
  id: string;
  root: string;
  peers: Record<string, string>;
}

export function startBenchServer({ id, root, peers }: BenchServerConfig): Promise<ServerRaftNode<number>> {
  return openLevelRaftNode<number>({
    id,
    clusterId: "bench",
    dataDir: join(root, id),
    host: "127.0.0.1",
    port: Number(peers[id]!.split(":")[1]),
    peers,
    bootstrap: Object.keys(peers),
    stateMachine: new Counter(),
    logger: pino({ level: "warn" }),
    tickMs: 50,
    electionTicks: 20,
    heartbeatTicks: 2,
  });
}

// As a child process: serve until told to stop; hand leadership to whoever the parent names.
if (process.send && process.argv[2]) {
  const node = await startBenchServer(JSON.parse(process.argv[2]) as BenchServerConfig);
  process.on("message", (m) => {
    const msg = m as { op: "transfer"; to: string } | { op: "stop" };
    if (msg.op === "transfer" && node.isLeader()) node.transferLeadership(msg.to).catch(() => {});
    if (msg.op === "stop") void node.stop().then(() => process.exit(0));
  });
  process.send({ ready: true });
}
