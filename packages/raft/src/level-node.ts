import type { Message } from "./core/types.js";
import type { Scheduler } from "./node/ports.js";
import { RaftNode, type RaftNodeOptions } from "./node.js";
import { RaftStorage } from "./storage/raft-storage.js";
import type { UpgradeHandler } from "./transport/listener.js";
import { isRaftMessage } from "./transport/message-shape.js";
import { SERVER_PATH, type TransportLimits } from "./transport/options.js";
import { ServerTransport } from "./transport/server-transport.js";
import type { TransportTls } from "./transport/tls.js";

/** A port someone else owns (a server agent's RPC port), on which the node takes the server connections. */
export interface SharedServerPort {
  /** The address peers dial to reach this server. */
  address: string;
  /** Registers the handler of websocket upgrades on `path`. */
  route(path: string, handler: UpgradeHandler): void;
}

interface LevelOptions<R> extends RaftNodeOptions<R> {
  clusterId: string;
  /** Holds `log/` (LevelDB) and `snapshots/`. */
  dataDir: string;
  transportLimits?: Partial<TransportLimits>;
  /** TLS of server connections, accepted and dialed (see `TransportOptions.tls`). */
  tls?: TransportTls;
  scheduler?: Scheduler;
}

export type LevelRaftNodeOptions<R> = LevelOptions<R> &
  (
    | {
        /** Listens on a port of its own; 0 picks a free port (see `RaftNode.address`). */
        host: string;
        port: number;
        advertiseAddress?: string;
        serverPort?: undefined;
      }
    | { serverPort: SharedServerPort }
  );

/** A production server's driver: its log in LevelDB under `dataDir`, its peers over websockets. */
export type ServerRaftNode<R> = RaftNode<R, ServerTransport<Message>>;

/** Opens the data directory, restores the state machine from the latest snapshot, and starts serving. */
export async function openLevelRaftNode<R>(options: LevelRaftNodeOptions<R>): Promise<ServerRaftNode<R>> {
  const log = options.logger;
  const storage = await RaftStorage.open(options.dataDir, log);
  let transport: ServerTransport<Message> | undefined;
  try {
    const common = {
      nodeId: options.id,
      clusterId: options.clusterId,
      logger: log.child({ component: "transport" }),
      isMessage: isRaftMessage,
      ...(options.random ? { random: options.random } : {}),
      ...(options.transportLimits ? { limits: options.transportLimits } : {}),
      ...(options.tls ? { tls: options.tls } : {}),
    };
    const shared = options.serverPort;
    if (shared) {
      const own = ServerTransport.create<Message>({ ...common, advertiseAddress: shared.address });
      shared.route(SERVER_PATH, (req, socket, head) => own.upgrade(req, socket, head));
      transport = own;
    } else {
      transport = await ServerTransport.start<Message>({
        ...common,
        host: options.host,
        port: options.port,
        ...(options.advertiseAddress === undefined ? {} : { advertiseAddress: options.advertiseAddress }),
      });
    }
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
