import { type ChildProcess, fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import type { ChildRequest } from "./child-node.js";
import { waitUntil } from "./cluster.js";

const CHILD = fileURLToPath(new URL("./child-node.ts", import.meta.url));

type Reply = { seq: number } & Record<string, unknown>;
type Body = ChildRequest extends infer R ? (R extends ChildRequest ? Omit<R, "seq"> : never) : never;

/** One server process; requests fail once it is gone. */
class ChildNode {
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  readonly exited: Promise<void>;
  alive = true;

  constructor(private readonly proc: ChildProcess) {
    proc.on("message", (m) => {
      const reply = m as Reply;
      this.waiting.get(reply.seq)?.resolve(reply);
      this.waiting.delete(reply.seq);
    });
    this.exited = new Promise((resolve) => {
      proc.on("exit", () => {
        this.alive = false;
        for (const w of this.waiting.values()) w.reject(new Error("process gone"));
        this.waiting.clear();
        resolve();
      });
    });
  }

  request(body: Body): Promise<Reply> {
    if (!this.alive) return Promise.reject(new Error("process gone"));
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      this.proc.send({ ...body, seq });
    });
  }

  async kill(): Promise<void> {
    this.proc.kill("SIGKILL");
    await this.exited;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let root: string | undefined;
const nodes = new Map<string, ChildNode>();

afterEach(async () => {
  await Promise.all([...nodes.values()].map((n) => n.kill()));
  nodes.clear();
  if (root) await rm(root, { recursive: true, force: true });
});

it("loses nothing acknowledged when the leader and a follower are SIGKILLed mid-write", async () => {
  root = await mkdtemp(join(tmpdir(), "cairn-raft-crash-"));
  const ids = ["a", "b", "c"];
  const peers: Record<string, string> = {};
  for (const id of ids) peers[id] = `127.0.0.1:${await freePort()}`;
  const spawn = async (id: string) => {
    const config = {
      id,
      dataDir: join(root!, id),
      port: Number(peers[id]!.split(":")[1]),
      peers,
      bootstrap: ids,
    };
    const proc = fork(CHILD, [JSON.stringify(config)], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const node = new ChildNode(proc);
    await new Promise<void>((resolve) => proc.once("message", () => resolve()));
    nodes.set(id, node);
  };
  await Promise.all(ids.map(spawn));

  const leader = async (): Promise<string> => {
    for (;;) {
      for (const [id, n] of nodes) {
        const state = await n.request({ op: "state" }).catch(() => undefined);
        if (state?.leader) return id;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  // Writers keep proposing through whoever leads; only acknowledged writes are recorded.
  const acked = new Map<string, string>();
  let maxIndex = 0;
  let writing = true;
  let counter = 0;
  let known: Promise<string> | undefined;
  const writer = async () => {
    while (writing) {
      known ??= leader();
      const asked = known;
      const key = `k${counter++}`;
      const reply = await nodes
        .get(await asked)
        ?.request({ op: "put", key, value: `v-${key}` })
        .catch(() => undefined);
      if (reply?.ok) {
        acked.set(key, `v-${key}`);
        maxIndex = Math.max(maxIndex, reply.index as number);
      } else if (known === asked) {
        known = undefined; // leadership moved (or the leader died): look again
      }
    }
  };
  const writers = Array.from({ length: 8 }, writer);
  const ackedAtLeast = (n: number) => waitUntil(() => acked.size >= n, `${n} writes acknowledged`, 20_000);

  await ackedAtLeast(100);
  const victim = await leader();
  await nodes.get(victim)!.kill();
  nodes.delete(victim);
  await ackedAtLeast(acked.size + 100);
  await spawn(victim);

  const follower = ids.find((id) => id !== victim)!;
  const current = await leader();
  const target = follower === current ? ids.find((id) => id !== victim && id !== current)! : follower;
  await nodes.get(target)!.kill();
  nodes.delete(target);
  await ackedAtLeast(acked.size + 100);
  await spawn(target);
  await ackedAtLeast(acked.size + 50);
  writing = false;
  await Promise.all(writers);

  const states = async () => Promise.all(ids.map((id) => nodes.get(id)!.request({ op: "state" })));
  const deadline = Date.now() + 20_000;
  while ((await states()).some((s) => (s.applied as number) < maxIndex)) {
    if (Date.now() > deadline) throw new Error("servers did not converge");
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const s of await states()) {
    const data = s.data as Record<string, string>;
    for (const [k, v] of acked) expect(data[k], `acknowledged ${k}`).toBe(v);
  }
  // Five cold starts of a tsx child (three at once, two restarts) besides the named waits: each can take
  // many seconds on a loaded machine.
}, 150_000);
