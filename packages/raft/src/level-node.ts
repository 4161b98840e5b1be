import type { Message } from "./core/types.js";
import type { Scheduler } from "./node/ports.js";
import { RaftNode, type RaftNodeOptions } from "./node.js";
import { RaftStorage } from "./storage/raft-storage.js";
import { isRaftMessage } from "./transport/message-shape.js";
import type { TransportLimits, TransportRoute } from "./transport/options.js";
import { ServerTransport } from "./transport/server-transport.js";
import type { TransportTls } from "./transport/tls.js";

export interface LevelRaftNodeOptions<R> extends RaftNodeOptions<R> {
  clusterId: string;
  /** Holds `log/` (LevelDB) and `snapshots/`. */
  dataDir: string;
  host: string;
  /** 0 picks a free port; see `RaftNode.address`. */
  port: number;
  advertiseAddress?: string;
  transportLimits?: Partial<TransportLimits>;
  /** TLS on the Raft port, accepted and dialed (see `TransportOptions.tls`). */
  tls?: TransportTls;
  /** Other websocket endpoints served on the Raft port, by URL path (see `TransportOptions.routes`). */
  routes?: Readonly<Record<string, TransportRoute>>;
  scheduler?: Scheduler;
}

/** A production server's driver: its log in LevelDB under `dataDir`, its peers over websockets. */
export type ServerRaftNode<R> = RaftNode<R, ServerTransport<Message>>;

/** Opens the data directory, restores the state machine from the latest snapshot, and starts serving. */
export async function openLevelRaftNode<R>(options: LevelRaftNodeOptions<R>): Promise<ServerRaftNode<R>> {
  const log = options.logger;
  const storage = await RaftStorage.open(options.dataDir, log);
  let transport: ServerTransport<Message> | undefined;
  try {
    transport = await ServerTransport.start<Message>({
      nodeId: options.id,
      clusterId: options.clusterId,
      host: options.host,
      port: options.port,
      ...(options.advertiseAddress === undefined ? {} : { advertiseAddress: options.advertiseAddress }),
      logger: log.child({ component: "transport" }),
      isMessage: isRaftMessage,
      ...(options.random ? { random: options.random } : {}),
      ...(options.transportLimits ? { limits: options.transportLimits } : {}),
      ...(options.tls ? { tls: options.tls } : {}),
      ...(options.routes ? { routes: options.routes } : {}),
    });
    return await RaftNode.open(options, {
      storage,
      transport,
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    });
  } catch (err) {
    await transport?.close();
    await storage.close();
    throw err;
  }
}
