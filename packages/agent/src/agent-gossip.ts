import type { IncomingMessage } from "node:http";
import type { ApiEnv, Authorizer } from "@cairn/api";
import { membershipRoutes } from "@cairn/api";
import type { Hono } from "hono";
import type { Logger } from "pino";
import type { WebSocket } from "ws";
import type { AgentConfig } from "./config/index.js";
import { EventLog } from "./events/event-log.js";
import {
  AgentMembership,
  CoordinateSender,
  type CoordinateUpdate,
  membershipBackend,
} from "./membership/index.js";
import type { MetricsRegistry } from "./metrics/registry.js";

type WsRoute = (ws: WebSocket, req: IncomingMessage) => void;

export interface AgentGossipStart {
  config: AgentConfig;
  nodeId: string;
  /** Servers: the RPC port their tags advertise. */
  serverPort?: number;
  /** Further websocket routes on the LAN port (the servers' join exchange). */
  lanRoutes?: Record<string, WsRoute>;
  dataDir: string | undefined;
  log: Logger;
  /** Sends this agent's coordinate to the servers (batched into Raft there). */
  sendCoordinate: (update: CoordinateUpdate) => Promise<void>;
  /** This agent's registered services, for the service and tag filters of user events. */
  localServices: () => readonly { ID: string; Service: string; Tags: readonly string[] }[];
  /** Called once a graceful leave through `/v1/agent/leave` is done: the agent shuts down. */
  shutdown: () => void;
}

/**
 * Everything gossip gives an agent, server or client: the membership pools, user events carried by them,
 * the coordinate updates sent to the servers, and the members endpoints.
 */
export class AgentGossip {
  private constructor(
    readonly membership: AgentMembership,
    readonly events: EventLog,
    private readonly coordinates: CoordinateSender,
    private readonly start: AgentGossipStart,
    private readonly unsubscribe: () => void,
  ) {}

  private meterTimer: NodeJS.Timeout | undefined;

  static async start(s: AgentGossipStart): Promise<AgentGossip> {
    const membership = await startMembership(s);
    const events = new EventLog({
      nodeName: s.config.nodeName,
      localServices: () =>
        s
          .localServices()
          .map((service) => ({ ID: service.ID, Service: service.Service, Tags: [...service.Tags] })),
      broadcast: (message) => membership.broadcast(message),
      logger: s.log.child({ component: "event" }),
    });
    const unsubscribe = membership.onUserMessage((payload) => events.receive(payload));
    const coordinates = new CoordinateSender({
      node: s.config.nodeName,
      coordinate: () => membership.localCoordinate(),
      clusterSize: () => membership.lanMembers().length,
      send: s.sendCoordinate,
      log: s.log.child({ component: "agent" }),
    });
    coordinates.start();
    return new AgentGossip(membership, events, coordinates, s, unsubscribe);
  }

  /** `/v1/agent/members`, `join`, `leave`, `force-leave`, to mount at `/v1/agent`. */
  routes(authorizer: Authorizer | undefined): Hono<ApiEnv> {
    return membershipRoutes(membershipBackend(this.membership, this.start.shutdown), {
      nodeName: this.start.config.nodeName,
      ...(authorizer ? { authorizer } : {}),
    });
  }

  /** Membership gauges and dropped-frame counts for /v1/agent/metrics, refreshed every second. */
  meter(metrics: MetricsRegistry): void {
    const sample = () => {
      const { lan } = this.membership.stats();
      metrics.setGauge("consul.serf.member.count", lan.members);
      metrics.setGauge("consul.memberlist.health.score", lan.healthScore);
      for (const [reason, count] of Object.entries(lan.transport.dropped))
        metrics.setGauge("cairn.gossip.frames.dropped", count, { reason });
    };
    sample();
    this.meterTimer = setInterval(sample, 1000);
    this.meterTimer.unref();
  }

  /**
   * Stops gossip as the signal asks: a graceful leave (others see left) when the agent's leave_on_terminate
   * or skip_leave_on_interrupt settings say so, otherwise a silent stop (others will see failed).
   */
  async stop(signal: NodeJS.Signals | undefined): Promise<void> {
    this.coordinates.stop();
    clearInterval(this.meterTimer);
    this.unsubscribe();
    const { config, log } = this.start;
    const leave =
      (signal === "SIGTERM" && config.leaveOnTerminate) ||
      (signal === "SIGINT" && !config.skipLeaveOnInterrupt);
    if (leave) {
      log.info("gracefully leaving the cluster");
      await this.membership.leave().catch((err: Error) => log.warn({ err: err.message }, "leave failed"));
    }
    await this.membership.close();
  }
}

/** A dev agent is alone: when its gossip ports are taken (another agent on this machine), free ones do. */
async function startMembership(s: AgentGossipStart): Promise<AgentMembership> {
  const options = {
    config: s.config,
    nodeId: s.nodeId,
    ...(s.serverPort === undefined ? {} : { serverPort: s.serverPort }),
    ...(s.lanRoutes ? { lanRoutes: s.lanRoutes } : {}),
    ...(s.dataDir === undefined ? {} : { dataDir: s.dataDir }),
    log: s.log.child({ component: "gossip" }),
  };
  try {
    return await AgentMembership.start(options);
  } catch (err) {
    if (!s.config.dev || (err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw err;
    s.log.warn("gossip ports in use; the dev agent takes free ones instead");
    const ports = { ...s.config.ports, serfLan: 0, serfWan: 0 };
    return AgentMembership.start({ ...options, config: { ...s.config, ports } });
  }
}
