import type { ReplicationStatusJson } from "@cairn/api";
import type { Logger } from "pino";
import { TunnelPool } from "../tunnel/pool.js";
import type { CairnServer } from "./server.js";

/**
 * `/v1/acl/replication` as Consul answers it: from the leader, which runs replication. A follower asks the
 * leader over the server RPC port (the tunnel), with `stale` so the leader answers for itself and a
 * request never travels twice; when no leader is known, or it cannot be asked, this server's own status.
 */
export class ReplicationStatusSource {
  private pool: { address: string; pool: TunnelPool } | undefined;

  constructor(
    private readonly server: CairnServer,
    private readonly token: () => string,
    private readonly log: Logger,
  ) {}

  async status(stale: boolean): Promise<ReplicationStatusJson> {
    const own = this.server.replicationStatus.json();
    if (stale || this.server.replication === undefined || own.Running) return own;
    const leader = await this.server.backend.leader();
    if (leader === "" || leader === this.server.serverAddress) return own;
    try {
      const res = await this.poolFor(leader).forward(
        new Request("http://leader/v1/acl/replication?stale", {
          headers: { "X-Consul-Token": this.token() },
          signal: AbortSignal.timeout(5_000),
        }),
      );
      if (res.status !== 200) throw new Error(`${res.status} ${(await res.text()).trim()}`);
      return (await res.json()) as ReplicationStatusJson;
    } catch (err) {
      this.log.debug({ leader, err: (err as Error).message }, "replication status from the leader failed");
      return own;
    }
  }

  close(): void {
    this.pool?.pool.close();
  }

  private poolFor(address: string): TunnelPool {
    if (this.pool?.address !== address) {
      this.pool?.pool.close();
      this.pool = {
        address,
        pool: new TunnelPool({
          servers: () => [{ name: "leader", rpcAddress: address }],
          log: this.log,
          connectTimeoutMs: 2_000,
        }),
      };
    }
    return this.pool.pool;
  }
}
