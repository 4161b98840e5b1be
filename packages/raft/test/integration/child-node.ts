// A RaftNode in its own process, driven over IPC, so a test can SIGKILL it in the middle of a write.
import pino from "pino";
import { openLevelRaftNode } from "../../src/level-node.js";
import { KvMachine, putCommand } from "./kv-machine.js";

interface Config {
  id: string;
  dataDir: string;
  port: number;
  peers: Record<string, string>;
  bootstrap: string[];
}

export type ChildRequest = { seq: number } & ({ op: "put"; key: string; value: string } | { op: "state" });

const config = JSON.parse(process.argv[2]!) as Config;
const machine = new KvMachine();
const node = await openLevelRaftNode<number>({
  id: config.id,
  clusterId: "crash",
  dataDir: config.dataDir,
  host: "127.0.0.1",
  port: config.port,
  peers: config.peers,
  bootstrap: config.bootstrap,
  stateMachine: machine,
  logger: pino({ level: "error" }),
  tickMs: 20,
  electionTicks: 10,
  heartbeatTicks: 2,
  snapshotThreshold: 50,
  transportLimits: { backoff: { initialMs: 20, maxMs: 200 } },
});

process.on("message", (raw) => {
  const req = raw as ChildRequest;
  const reply = (body: object) => process.send?.({ seq: req.seq, ...body });
  if (req.op === "state") {
    reply({ leader: node.isLeader(), applied: node.appliedIndex, data: Object.fromEntries(machine.data) });
    return;
  }
  node.propose(putCommand(req.key, req.value)).then(
    (index) => reply({ ok: true, index }),
    (err: Error) => reply({ ok: false, error: err.name }),
  );
});
process.send?.({ seq: 0, ready: true });
