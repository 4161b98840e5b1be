import type { Command, StateStore, StateView } from "@cairn/fsm";
import type { Logger } from "pino";
import type { AgentMember, MembershipView } from "../../membership/types.js";
import {
  absentNodes,
  planReconcile,
  type RaftMembership,
  type ReconcileSelf,
  type ReconcileStep,
} from "./member-reconcile.js";

/** Changes to the Raft peer set, made on the leader. */
export interface RaftPeerChanges {
  /** Undefined while this server has no Raft configuration. */
  membership(): RaftMembership | undefined;
  /** Adds a server as a non-voter (nothing when it is already a member). */
  join(id: string, address: string): Promise<void>;
  remove(id: string): Promise<void>;
}

export interface MemberReconcilerOptions {
  self: () => ReconcileSelf;
  membership: MembershipView;
  store: StateStore;
  apply: (command: Command) => Promise<unknown>;
  raft: RaftPeerChanges;
  log: Logger;
  now: () => number;
  /** Full pass period, Consul's reconcile_interval (60 s). */
  intervalMs: number;
  /** Member changes arriving within this window are reconciled together. */
  batchMs: number;
  /**
   * How long a catalog node must be missing from gossip before it is reaped. A leader whose pool has just
   * started (a restart, a fresh election) does not know every member yet; absence alone proves nothing
   * until the pool has had time to sync. Members gossip itself reaped go at once.
   */
  reapGraceMs: number;
}

/**
 * The leader's member reconciliation: a full pass at leadership and every interval, and the changed
 * members (batched) after each gossip event. Passes never overlap; a change during a pass is picked up by
 * the next one. A failed step is logged and retried by the next pass.
 */
export class MemberReconciler {
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private batchTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly changed = new Set<string>();
  private fullPending = false;
  private pass: Promise<void> | undefined;
  /** Catalog nodes missing from gossip, since when (this leadership only). */
  private readonly absentSince = new Map<string, number>();

  constructor(private readonly options: MemberReconcilerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.options.membership.onChange((member) => this.memberChanged(member));
    this.timer = setInterval(() => this.requestFull(), this.options.intervalMs);
    this.timer.unref();
    this.requestFull();
  }

  stop(): void {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearInterval(this.timer);
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    this.changed.clear();
    this.fullPending = false;
    this.absentSince.clear();
  }

  /** Resolves once no pass is running or waiting (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.pass || this.batchTimer) {
      if (this.pass) await this.pass;
      else await new Promise((resolve) => setTimeout(resolve, this.options.batchMs));
    }
  }

  private memberChanged(member: AgentMember): void {
    if (!this.running) return;
    this.changed.add(member.name);
    this.schedule();
  }

  private requestFull(): void {
    this.fullPending = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.batchTimer || this.pass || !this.running) return;
    this.batchTimer = setTimeout(() => {
      this.batchTimer = undefined;
      this.pass = this.runPass().finally(() => {
        this.pass = undefined;
        if (this.running && (this.fullPending || this.changed.size > 0)) this.schedule();
      });
    }, this.options.batchMs);
    this.batchTimer.unref();
  }

  /** One pass: a full one when asked for, else the members changed since the last pass. */
  private async runPass(): Promise<void> {
    const full = this.fullPending;
    const names = new Set(this.changed);
    this.fullPending = false;
    this.changed.clear();
    const all = this.options.membership.lanMembers();
    const members = full ? all : all.filter((m) => names.has(m.name));
    const present = new Set(all.map((m) => m.name));
    // A changed member no longer listed at all was reaped by gossip: it goes now.
    const reaped = new Set([...names].filter((name) => !present.has(name)));
    const view = this.options.store.view();
    const self = this.options.self();
    const now = this.options.now();
    const known =
      full || reaped.size > 0 ? this.notYetReapable(view, present, reaped, self.name, now) : undefined;
    const steps = planReconcile({
      self,
      members,
      ...(known ? { known } : {}),
      view,
      raft: this.options.raft.membership(),
      now,
    });
    for (const step of steps) {
      if (!this.running) return;
      await this.carryOut(step).catch((err: Error) =>
        this.options.log.warn(
          { step: describe(step), err: err.message },
          "member reconciliation step failed",
        ),
      );
    }
  }

  /** The members, plus the absent nodes still within their grace: what the reap step must leave alone. */
  private notYetReapable(
    view: StateView,
    present: ReadonlySet<string>,
    reaped: ReadonlySet<string>,
    self: string,
    now: number,
  ): Set<string> {
    const absent = absentNodes(view, present, self);
    for (const node of this.absentSince.keys()) if (!absent.includes(node)) this.absentSince.delete(node);
    const keep = new Set(present);
    for (const node of absent) {
      const since = this.absentSince.get(node) ?? now;
      this.absentSince.set(node, since);
      if (!reaped.has(node) && now - since < this.options.reapGraceMs) keep.add(node);
    }
    return keep;
  }

  private async carryOut(step: ReconcileStep): Promise<void> {
    const { log } = this.options;
    switch (step.kind) {
      case "catalog": {
        const result = await this.options.apply(step.command);
        // A refused registration (a node ID another node holds) is an answer, not an exception.
        if (typeof result === "object" && result !== null && "error" in result)
          throw new Error(String(result.error));
        log.info({ node: step.node, status: step.reason }, "member reconciled into the catalog");
        return;
      }
      case "raft-join":
        await this.options.raft.join(step.id, step.address);
        log.info(
          { server: step.id, address: step.address },
          "server found through gossip added as non-voter",
        );
        return;
      case "raft-remove":
        await this.options.raft.remove(step.id);
        log.info({ server: step.id, reason: step.reason }, "server removed from the Raft configuration");
        return;
    }
  }
}

function describe(step: ReconcileStep): string {
  return step.kind === "catalog" ? `${step.reason} ${step.node}` : `${step.kind} ${step.id}`;
}
