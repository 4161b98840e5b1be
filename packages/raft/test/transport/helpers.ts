import { join } from "node:path";
import pino from "pino";
import type { Message } from "../../src/core/types.js";
import { SnapshotFileWriter } from "../../src/storage/snapshot-files.js";
import { isRaftMessage } from "../../src/transport/message-shape.js";
import type { TransportLimits } from "../../src/transport/options.js";
import { ServerTransport } from "../../src/transport/server-transport.js";
import type { TransportTls } from "../../src/transport/tls.js";

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface TestServer {
  id: string;
  transport: ServerTransport<Message>;
  /** Each onMessages call, as received. */
  batches: Array<{ from: string; messages: Message[] }>;
  unreachable: string[];
  logs: LogLine[];
  /** Snapshots received and committed: the path of each file. */
  snapshots: string[];
}

export async function startServer(
  id: string,
  options: {
    port?: number;
    snapshotDir?: string;
    limits?: Partial<TransportLimits>;
    cluster?: string;
    tls?: TransportTls;
  } = {},
): Promise<TestServer> {
  const logs: LogLine[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => logs.push(JSON.parse(line)) });
  const s: Omit<TestServer, "transport"> = { id, batches: [], unreachable: [], logs, snapshots: [] };
  const transport = await ServerTransport.start<Message>({
    nodeId: id,
    clusterId: options.cluster ?? "test-cluster",
    host: "127.0.0.1",
    port: options.port ?? 0,
    logger,
    isMessage: isRaftMessage,
    random: () => 0.5,
    ...(options.tls ? { tls: options.tls } : {}),
    limits: { backoff: { initialMs: 20, maxMs: 200 }, ...options.limits },
    handlers: {
      onMessages: (from, messages) => s.batches.push({ from, messages }),
      onUnreachable: (peer) => s.unreachable.push(peer),
      onSnapshot: async (_from, message, _size) => {
        if (message.type !== "snapshot" || !options.snapshotDir) throw new Error("not expecting snapshots");
        const name = `received-${message.snapshot.term}-${message.snapshot.index}.bin`;
        const writer = await SnapshotFileWriter.create(options.snapshotDir, name);
        return {
          write: (chunk) => writer.write(chunk),
          commit: async () => {
            await writer.commit();
            s.snapshots.push(join(options.snapshotDir!, name));
          },
          abort: () => writer.abort(),
        };
      },
    },
  });
  return { ...s, transport };
}

export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}

export function heartbeat(from: string, to: string, commit: number): Message {
  return { type: "heartbeat", from, to, term: 1, commit, sent: 0, read: 0 };
}

export function append(from: string, to: string, index: number, bytes: number): Message {
  return {
    type: "append",
    from,
    to,
    term: 1,
    prevIndex: index - 1,
    prevTerm: 1,
    commit: 0,
    sent: 0,
    entries: [{ term: 1, index, kind: "normal", data: Buffer.alloc(bytes, 1) }],
  };
}
