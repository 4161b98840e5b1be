import type { Command, StateStore } from "@cairn/fsm";
import type { Logger } from "pino";
import type { AutopilotSettings } from "../../config/index.js";
import type { MembershipView } from "../../membership/types.js";
import { DeadServerCleanup } from "./dead-server-cleanup.js";
import type { LeaderDuty } from "./leader-duties.js";
import type { ReconcileSelf } from "./member-reconcile.js";
import { MemberReconciler, type RaftPeerChanges } from "./member-reconciler.js";

/** Consul's reconcile_interval: a full member pass this often even without gossip events. */
const RECONCILE_INTERVAL_MS = 60_000;
/** Gossip events this close together are reconciled in one pass. */
const RECONCILE_BATCH_MS = 100;
const DEAD_SERVER_CHECK_MS = 5_000;

export interface GossipDutiesOptions {
  membership: MembershipView | undefined;
  self: () => ReconcileSelf;
  store: StateStore;
  apply: (command: Command) => Promise<unknown>;
  raft: RaftPeerChanges;
  serverNames: () => ReadonlyMap<string, string>;
  /** The autopilot settings in effect now. */
  autopilot: () => AutopilotSettings;
  log: Logger;
  now: () => number;
}

/**
 * The leader duties gossip membership drives: member reconciliation into the catalog and Raft, and
 * autopilot's dead server cleanup. None without membership (a server started without gossip).
 */
export function gossipDuties(options: GossipDutiesOptions): LeaderDuty[] {
  const { membership, autopilot, log } = options;
  if (!membership) return [];
  return [
    new MemberReconciler({
      self: options.self,
      membership,
      store: options.store,
      apply: options.apply,
      raft: options.raft,
      log: log.child({ component: "leader" }),
      now: options.now,
      intervalMs: RECONCILE_INTERVAL_MS,
      batchMs: RECONCILE_BATCH_MS,
      // Two full passes: a pool that just started has synced with its peers long before.
      reapGraceMs: RECONCILE_INTERVAL_MS,
    }),
    new DeadServerCleanup({
      selfId: () => options.self().id,
      membership,
      raft: options.raft,
      serverNames: options.serverNames,
      settings: autopilot,
      log: log.child({ component: "autopilot" }),
      now: options.now,
      checkEveryMs: DEAD_SERVER_CHECK_MS,
    }),
  ];
}
