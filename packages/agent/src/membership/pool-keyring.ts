import { randomUUID } from "node:crypto";
import { type GossipNode, KeyringError } from "@cairn/gossip";
import type { Logger } from "pino";
import { writeKeyringFile } from "./keyring-file.js";

export type KeyringOp = "list" | "install" | "use" | "remove";

/** One pool's answer, as Serf's KeyResponse: per-node failures, and how many members hold each key. */
export interface PoolKeyringResult {
  NumNodes: number;
  Keys: Record<string, number>;
  PrimaryKeys: Record<string, number>;
  Messages: Record<string, string>;
  /** Empty when every member answered and none failed. */
  Error: string;
}

/** The question, gossiped to every member of the pool (encrypted with the pool's keys like all gossip). */
interface Query {
  cairnKeyring: "query";
  id: string;
  op: KeyringOp;
  key?: string;
  /** Gossip address the answers go to. */
  reply: string;
}

/** One member's answer, sent to the asker alone. */
interface Reply {
  cairnKeyring: "reply";
  id: string;
  node: string;
  error?: string;
  keys: string[];
  primary?: string;
}

const OPS = new Set<string>(["list", "install", "use", "remove"]);

function isQuery(v: unknown): v is Query {
  const q = v as Partial<Query> | null;
  return (
    typeof q === "object" &&
    q !== null &&
    q.cairnKeyring === "query" &&
    typeof q.id === "string" &&
    OPS.has(q.op as string) &&
    (q.key === undefined || typeof q.key === "string") &&
    typeof q.reply === "string"
  );
}

function isReply(v: unknown): v is Reply {
  const r = v as Partial<Reply> | null;
  return (
    typeof r === "object" &&
    r !== null &&
    r.cairnKeyring === "reply" &&
    typeof r.id === "string" &&
    typeof r.node === "string" &&
    Array.isArray(r.keys) &&
    r.keys.every((k) => typeof k === "string")
  );
}

/** Whether a gossiped payload belongs to the keyring (and so is not a user event). */
export function isKeyringPayload(v: unknown): boolean {
  return typeof v === "object" && v !== null && "cairnKeyring" in v;
}

/**
 * The keyring operations of one gossip pool, as Serf's key manager runs them: the asker applies the change
 * to its own keyring, gossips the question, every member applies it and answers the asker directly, and the
 * answers are counted. Each member writes its keyring file after a change, so a restart keeps the keys.
 */
export class PoolKeyring {
  private readonly waiting = new Map<string, (reply: Reply) => void>();

  constructor(
    private readonly node: GossipNode,
    /** Where this member keeps its keys (undefined: nothing persists, as in dev mode). */
    private readonly file: string | undefined,
    private readonly log: Logger,
    private readonly timeoutMs = 5000,
  ) {
    node.on("user-message", ({ payload }) => {
      if (isQuery(payload)) this.answer(payload);
    });
    node.on("direct-message", ({ payload }) => {
      if (isReply(payload)) this.waiting.get(payload.id)?.(payload);
    });
  }

  /** Runs `op` on every live member of the pool; resolves once all answered or the wait ran out. */
  async run(op: KeyringOp, key: string | undefined): Promise<PoolKeyringResult> {
    const numNodes = this.node.members().filter((m) => m.state === "alive" || m.state === "suspect").length;
    const query: Query = { cairnKeyring: "query", id: randomUUID(), op, reply: this.node.address };
    if (key !== undefined) query.key = key;
    const replies = new Map<string, Reply>();
    const own = this.apply(query);
    replies.set(own.node, own);
    if (numNodes > 1) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.timeoutMs);
        this.waiting.set(query.id, (reply) => {
          replies.set(reply.node, reply);
          if (replies.size >= numNodes) {
            clearTimeout(timer);
            resolve();
          }
        });
        this.node.broadcast(query);
      });
      this.waiting.delete(query.id);
    }
    return tally([...replies.values()], numNodes);
  }

  private answer(query: Query): void {
    const reply = this.apply(query);
    this.node.sendDirect(query.reply, reply);
  }

  /** Applies a question to this member's keyring; the answer says what it now holds, or why it refused. */
  private apply(query: Query): Reply {
    const name = this.node.localMember().name;
    const keyring = this.node.keyring;
    if (!keyring) {
      const error =
        query.op === "list"
          ? "Keyring is empty (encryption not enabled)"
          : "No keyring to modify (encryption not enabled)";
      return { cairnKeyring: "reply", id: query.id, node: name, error, keys: [] };
    }
    let error: string | undefined;
    if (query.op !== "list") {
      try {
        const key = query.key ?? "";
        if (query.op === "install") keyring.install(key);
        else if (query.op === "use") keyring.use(key);
        else keyring.remove(key);
        this.persist(keyring.list());
        this.log.info({ op: query.op }, "gossip keyring changed");
      } catch (err) {
        if (!(err instanceof KeyringError)) throw err;
        error = err.message;
      }
    }
    const reply: Reply = {
      cairnKeyring: "reply",
      id: query.id,
      node: name,
      keys: keyring.list(),
      primary: keyring.primaryKey(),
    };
    if (error !== undefined) reply.error = error;
    return reply;
  }

  private persist(keys: readonly string[]): void {
    if (this.file === undefined) return;
    try {
      writeKeyringFile(this.file, keys);
    } catch (err) {
      this.log.error({ err: (err as Error).message, file: this.file }, "could not write the keyring file");
    }
  }
}

/** Serf's counting: keys by how many members hold them, failures by node, and the error summary. */
function tally(replies: readonly Reply[], numNodes: number): PoolKeyringResult {
  const result: PoolKeyringResult = {
    NumNodes: numNodes,
    Keys: {},
    PrimaryKeys: {},
    Messages: {},
    Error: "",
  };
  let failed = 0;
  for (const r of replies) {
    if (r.error !== undefined) {
      failed++;
      result.Messages[r.node] = r.error;
      continue;
    }
    for (const k of r.keys) result.Keys[k] = (result.Keys[k] ?? 0) + 1;
    if (r.primary !== undefined) result.PrimaryKeys[r.primary] = (result.PrimaryKeys[r.primary] ?? 0) + 1;
  }
  if (failed > 0) result.Error = `${failed}/${numNodes} nodes reported failure`;
  else if (replies.length < numNodes) result.Error = `${replies.length}/${numNodes} nodes reported success`;
  return result;
}
