import type { Logger } from "pino";
import type { AgentCatalog, CatalogWrite } from "./catalog.js";
import type { Clock } from "./clock.js";
import { type CatalogSnapshot, type LocalSnapshot, planSync, type SyncOp } from "./sync-plan.js";

export interface AntiEntropyOptions {
  catalog: AgentCatalog;
  clock: Clock;
  log: Logger;
  /** The agent's local state at the moment of a sync. */
  local: () => LocalSnapshot;
  /** EnableTagOverride: the catalog's tags for a service replace the agent's (Consul lets them win). */
  adoptTags: (serviceId: string, tags: readonly string[]) => void;
  /** The snapshot's changed services reached the catalog. */
  synced: (changed: ReadonlyMap<string, number>) => void;
  /** Full sync period for clusters up to 128 nodes (Consul: one minute); scaled up beyond. */
  intervalMs: number;
  /** Wait after a failed sync (no leader, say) before trying again. */
  retryMs: number;
  random: () => number;
}

/**
 * Keeps the catalog in step with the agent's local services and checks: a sync right after every local
 * change, a periodic full sync that repairs drift (entries changed or removed in the catalog behind the
 * agent's back), and a retry soon after a failed one. One sync runs at a time; triggers during a sync
 * coalesce into one more.
 */
export class AntiEntropy {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private timer: unknown;
  private stopped = false;

  constructor(private readonly o: AntiEntropyOptions) {}

  start(): void {
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    this.o.clock.clearTimeout(this.timer);
  }

  /** Syncs soon; resolves when a sync that started after this call has finished (successfully or not). */
  trigger(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.queued) return this.queued;
    const previous = this.running ?? Promise.resolve();
    const next = previous.then(() => {
      this.queued = undefined;
      const run = this.syncOnce();
      this.running = run;
      return run.finally(() => {
        if (this.running === run) this.running = undefined;
      });
    });
    this.queued = next;
    return next;
  }

  /** One full comparison and the writes it calls for; never throws (a failure schedules a retry). */
  private async syncOnce(): Promise<void> {
    if (this.stopped) return;
    try {
      let local = this.o.local();
      const { catalog, nodes } = await this.o.catalog.read(local.node.name);
      if (this.adoptCatalogTags(local, catalog)) local = this.o.local();
      const ops = planSync(local, catalog);
      for (const op of ops) await this.applyUnlessDenied(op, local.node.name);
      if (local.changed !== undefined) this.o.synced(local.changed);
      if (ops.length > 0) this.o.log.debug({ writes: ops.length }, "anti-entropy synced the catalog");
      this.schedule(this.fullSyncInterval(nodes));
    } catch (err) {
      this.o.log.warn({ err: (err as Error).message }, "anti-entropy sync failed; retrying");
      this.schedule(this.o.retryMs);
    }
  }

  /** Whether some service with EnableTagOverride took the catalog's tags. */
  private adoptCatalogTags(local: LocalSnapshot, catalog: CatalogSnapshot): boolean {
    let adopted = false;
    for (const s of local.services) {
      // A service changed here goes to the catalog as it is; only one in sync takes the catalog's tags.
      if (!s.EnableTagOverride || local.changed?.has(s.ID)) continue;
      const remote = catalog.services.find((c) => c.ID === s.ID && c.Namespace === s.Namespace);
      if (remote === undefined || sameTags(remote.Tags, s.Tags)) continue;
      this.o.adoptTags(s.ID, remote.Tags);
      adopted = true;
    }
    return adopted;
  }

  /**
   * A write its token may not make is skipped, logged, until the next full sync, as Consul's agent does: the
   * other entries still sync, and no retry loop hammers the servers with a refusal that will not change.
   */
  private async applyUnlessDenied(op: SyncOp, node: string): Promise<void> {
    try {
      await this.o.catalog.write(catalogWrite(op, node), op.token);
    } catch (err) {
      const reason = (err as Error).message;
      if (!ACL_REFUSAL.test(reason)) throw err;
      this.o.log.warn({ write: describe(op), reason }, "anti-entropy write blocked by ACLs");
    }
  }

  /** Consul's scaling: the interval grows with log2 of the node count beyond 128, plus up to 1/16 jitter. */
  private fullSyncInterval(nodes: number): number {
    const scale = nodes <= 128 ? 1 : Math.ceil(Math.log2(nodes) - Math.log2(128) + 1);
    const interval = this.o.intervalMs * scale;
    return interval + Math.floor(this.o.random() * (interval / 16));
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.o.clock.clearTimeout(this.timer);
    this.timer = this.o.clock.setTimeout(() => void this.trigger(), ms);
  }
}

/** The request Consul's agent sends for `op`: Catalog.Register with the registration, or Catalog.Deregister. */
function catalogWrite(op: SyncOp, node: string): CatalogWrite {
  if (op.kind === "register") return { rpc: "Catalog.Register", body: op.registration };
  const target = op.kind === "deregister-service" ? { ServiceID: op.serviceID } : { CheckID: op.checkID };
  return { rpc: "Catalog.Deregister", body: { Node: node, ...target, Namespace: op.ns } };
}

/** How a server says a token may not make a write (its reason crosses the tunnel as text). */
const ACL_REFUSAL = /Permission denied|ACL not found/;

function describe(op: SyncOp): string {
  if (op.kind === "deregister-service") return `deregister service ${op.serviceID}`;
  if (op.kind === "deregister-check") return `deregister check ${op.checkID}`;
  const r = op.registration;
  if (r.Service) return `register service ${r.Service.ID || r.Service.Service}`;
  if (r.Check) return `register check ${r.Check.CheckID}`;
  return `register node ${r.Node}`;
}

function sameTags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
