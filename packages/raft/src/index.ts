export { applyConfChange, type ConfEntry, decodeConfEntry, encodeConfEntry } from "./core/conf.js";
export { RaftCore } from "./core/raft.js";
export type * from "./core/types.js";
export {
  type LevelRaftNodeOptions,
  openLevelRaftNode,
  type ServerRaftNode,
  type SharedServerPort,
} from "./level-node.js";
export type { RaftObserver } from "./node/commit-timer.js";
export {
  NodeStoppedError,
  NotLeaderError,
  ProposalDroppedError,
  RaftRejectedError,
  RaftTimeoutError,
} from "./node/errors.js";
export {
  type DurableChanges,
  realScheduler,
  type Scheduler,
  type SnapshotWriter,
  type Storage,
  type TimerHandle,
  type Transport,
  type TransportInbound,
} from "./node/ports.js";
export type { SnapshotOutput, StateMachine } from "./node/state-machine.js";
export { atTurnEnd } from "./node/turn-end.js";
export {
  type AddressedConfChange,
  RaftNode,
  type RaftNodeEvents,
  type RaftNodeOptions,
  type RaftNodePorts,
  type RaftNodeStatus,
} from "./node.js";
export {
  type RecoveryMember,
  type RecoveryOutcome,
  recoverCluster,
} from "./recovery/recover-cluster.js";
export { StorageCorruptionError, StorageVersionError } from "./storage/errors.js";
export { RpcListener, refuseUpgrade, type UpgradeHandler, upgradePath } from "./transport/listener.js";
export type { TransportLimits } from "./transport/options.js";
export { RpcError, type RpcFailure } from "./transport/rpc-error.js";
export type { ServerTransport } from "./transport/server-transport.js";
export {
  certificateNameError,
  dialTarget,
  type IncomingTls,
  type OutgoingTls,
  type TransportTls,
} from "./transport/tls.js";
